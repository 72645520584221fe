import Foundation

extension ReconstructionPipeline {
    /// The dense stage's working folder: undistorted views, masks, depth maps and their manifest.
    public var denseDirectory: URL { layout.denseWork }

    /// The fused point cloud, `OUTPUT/dense.ply`.
    public var denseCloudURL: URL { layout.denseCloud }

    /// Stage 7: depth maps of the registered images at the run's detail level, fused into
    /// `dense.ply`, under the masks the features used (none for rooms unless given).
    ///
    /// Records the stage's time and `dense_points`. Any failure becomes one
    /// ``DenseReconstructionError`` line that says the sparse outputs are complete; a cancel
    /// stays ``PipelineError/cancelled``.
    func reconstructDense(_ model: Reconstruction, capture: Capture, masks: MaskSource?) throws {
        var dense = options.dense
        dense.detail = options.detail
        dense.patchMatch.numThreads = options.numThreads
        dense.patchMatch.seed = options.seed
        dense.fusion.numThreads = options.numThreads
        let byName = Dictionary(capture.images.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var inputs: [ImageID: DenseReconstruction.Input] = [:]
        for (id, image) in model.images where image.isRegistered {
            guard let source = byName[image.name] else { continue }
            inputs[id] = DenseReconstruction.Input(name: image.name, url: source.url,
                                                   maskURL: masks?.maskURL(for: source), keepRect: masks?.keepRect)
        }
        let stage = DenseReconstruction(model: model, inputs: inputs, options: dense, directory: denseDirectory,
                                        cloudURL: denseCloudURL, threads: options.numThreads, progress: progress)
        do {
            let result = try timed("dense") { try stage.run() }
            report.densePoints = result.points
            if result.reusedDepthMaps > 0 {
                progress?.event(.denseResumed, "dense: \(result.reusedDepthMaps) depth maps reused from an earlier run"
                               + (result.reusedCloud ? ", and the cloud" : ""))
            }
        } catch PipelineError.cancelled {
            throw PipelineError.cancelled
        } catch {
            let reason: String
            switch error {
            case let error as DenseReconstructionError: reason = error.message
            case let error as CVisionError: reason = error.message
            default: reason = "\(error)"
            }
            throw DenseReconstructionError("\(reason); the sparse model in \(layout.sparse().path) "
                                           + "and the report are complete")
        }
    }
}
