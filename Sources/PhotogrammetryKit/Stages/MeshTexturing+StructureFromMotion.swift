import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse
import PhotogrammetryDense

/// The photos' poses from our own structure from motion, aligned to the mesh.
///
/// Pose priors from a phone (ARKit) drift along a walk and may come from another session than
/// the mesh: their poses put a photo's pixels centimetres off the surface, which shows as
/// doubled edges at seams. Bundle adjustment pulled by the priors (as `reconstruct --priors`
/// does) corrects the drift and leaves the model in the priors' frame; that frame is then
/// brought onto the mesh by ICP of the sparse points against the surface (a similarity, so a
/// frame off by a few per cent of scale, a shift or a small turn is corrected too).
extension MeshTexturing {
    /// How the SfM poses were aligned to the mesh.
    public struct SfMAlignment {
        /// The photos the model registered, posed in the mesh's frame, with the model's cameras.
        public var posed: [PosedPhoto]
        /// The similarity from the SfM model's frame (the priors') to the mesh's, and its fit.
        public var fit: TriangleMesh.AlignmentFit
        /// Sparse points the alignment used.
        public var points: Int
    }

    /// Poses `capture`'s photos by a sparse reconstruction with `priors`, written to `workspace`
    /// (resumable like any reconstruction), aligned to `mesh` by ICP.
    /// - Throws: ``PipelineError`` from the reconstruction; ``CVisionError`` when the alignment
    ///   has too few points.
    public static func structureFromMotionPoses(mesh: MeshModel, input: URL, capture: Capture, priors: URL,
                                                mask: MaskSelection, workspace: URL, threads: Int,
                                                progress: ProgressSink?) throws -> SfMAlignment {
        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.priors = .given(priors)
        options.mask = mask
        options.numThreads = threads
        // The limit the caller set for its own decoding (`texture --max-megapixels`).
        options.decodeLimits = DecodeLimits.current
        let layout = OutputLayout(output: workspace)
        _ = try ReconstructionPipeline(input: input, layout: layout, options: options, progress: progress).run()
        let model = try Reconstruction.readColmapText(from: layout.sparse())
        let points = model.points3D.values.map(\.position)
        let surface = try TriangleMesh(positions: mesh.positions, triangles: mesh.triangles)
        let fit = try surface.align(points)
        let byName = Dictionary(capture.images.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let posed = model.images.values.sorted { $0.id < $1.id }.compactMap { image -> PosedPhoto? in
            guard let pose = image.camFromWorld, let photo = byName[image.name],
                  let camera = model.cameras[image.cameraID] else { return nil }
            return PosedPhoto(image: photo, camFromWorld: fit.similarity.transform(pose), camera: camera)
        }
        return SfMAlignment(posed: posed, fit: fit, points: points.count)
    }
}
