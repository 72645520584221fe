import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetrySparse
import PhotogrammetryDense

/// `photogrammetry texture MESH CAPTURE OUTPUT [--priors PATH] [--detail LEVEL] [--mask ...]`:
/// a mesh from elsewhere textured from a capture's photos at poses given in the mesh's frame.
enum TextureCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.texture.parse(arguments)
        guard parsed.positionals.count == 3 else {
            throw ArgumentParser.Failure(description: "texture takes MESH, CAPTURE and OUTPUT (a folder or a model file)")
        }
        // A texturing run's defaults are a reconstruction's (as its --help says).
        let defaults = ReconstructionOptions()
        var detail = defaults.detail
        if let text = parsed["detail"] {
            guard let level = DetailLevel(parsing: text) else {
                throw ArgumentParser.Failure(description: "--detail must be one of \(DetailLevel.names)")
            }
            detail = level
        }
        let threads = parsed.threads ?? defaults.numThreads
        var poses = CommandSpec.TexturePoses.priors
        if let text = parsed["poses"] {
            guard let given = CommandSpec.TexturePoses(rawValue: text) else {
                let names = CommandSpec.list(CommandSpec.TexturePoses.allCases.map(\.rawValue), "or")
                throw ArgumentParser.Failure(description: "--poses must be \(names), not \(text)")
            }
            poses = given
        }
        let fromStructureFromMotion = poses == .sfm
        // The photos (and masks) texturing decodes are held to this limit, as a run's are.
        try (try parsed["max-megapixels"].map(PipelineArguments.decodeLimits) ?? DecodeLimits()).apply()
        let meshURL = URL(fileURLWithPath: parsed.positionals[0])
        let input = URL(fileURLWithPath: parsed.positionals[1])
        let layout = OutputLayout(output: URL(fileURLWithPath: parsed.positionals[2]))
        try MeshCommand.checkWritable(layout)

        // Everything is read and checked before anything is written.
        let started = Date()
        let mesh: MeshModel
        do { mesh = try ModelReader.read(meshURL) } catch { throw MeshFailure("\(error)") }
        try OutputFolder.refuseOverlap(input: input, output: layout.root)
        try OutputFolder.prepare(layout)
        let cleanup = TextureWorkspace(layout: layout)
        do {
            // A signal ends the run as a failure does: the views and unpacked zip go, --poses
            // sfm's checkpoints stay for the rerun.
            try Interruption.whileRunning(cleanup: { cleanup.removeAfterFailure() }) {
                try run(parsed, mesh: mesh, meshURL: meshURL, input: input, layout: layout, detail: detail,
                        threads: threads, fromStructureFromMotion: fromStructureFromMotion, started: started)
            }
        } catch {
            cleanup.removeAfterFailure()
            throw error
        }
        cleanup.removeAfterSuccess()
    }

    /// Reads the capture and its priors, textures `mesh` and writes the model files.
    static func run(_ parsed: ArgumentParser.Parsed, mesh: MeshModel, meshURL: URL, input: URL, layout: OutputLayout,
                    detail: DetailLevel, threads: Int, fromStructureFromMotion: Bool, started: Date) throws {
        let work = layout.work
        let capture = try CaptureLoader.load(input: input, workspace: work, excluding: layout.root)
        let priorsURL = parsed["priors"].map { URL(fileURLWithPath: $0) } ?? PosePriors.discover(in: capture)
        guard let priorsURL else {
            throw MeshFailure("\(input.path): no transforms.json beside the images and no --priors: texture needs the photos' poses in the mesh's frame")
        }
        let priors = try PosePriors.load(priorsURL, images: capture.images)
        let masks: MaskSource?, maskSelection: MaskSelection
        switch parsed["mask"] {
        case "none"?:
            masks = nil
            maskSelection = .disabled
        case let path?:
            let source = try MaskSource.load(URL(fileURLWithPath: path))
            masks = source
            maskSelection = .given(source)
        case nil:
            masks = try MaskSource.discover(in: capture)
            maskSelection = .automatic
        }
        print("mesh: \(meshURL.path): \(mesh.triangles.count) triangles, \(mesh.positions.count) vertices")
        print("capture: \(capture.images.count) images, \(priors.summary)")

        let workspace = work.appendingPathComponent("texture", isDirectory: true)
        let result: MeshTexturing.Result
        if fromStructureFromMotion {
            let sfm = work.appendingPathComponent("sfm", isDirectory: true)
            print("poses: structure from motion with the priors in \(sfm.path) ...")
            let aligned = try MeshTexturing.structureFromMotionPoses(mesh: mesh, input: input, capture: capture, priors: priorsURL,
                                                                     mask: maskSelection, workspace: sfm, threads: threads,
                                                                     progress: nil)
            let fit = aligned.fit
            print(String(format: "poses: %d of %d images registered; aligned to the mesh by %d points: scale %.4f, "
                         + "%.0f%% of the points on the surface, RMS %.3g", aligned.posed.count, capture.images.count, aligned.points,
                         fit.similarity.scale, 100 * fit.fitness, fit.rmse))
            result = try MeshTexturing.run(mesh: mesh, posed: aligned.posed, masks: masks, workspace: workspace,
                                           detail: detail, threads: threads)
        } else {
            result = try MeshTexturing.run(mesh: mesh, capture: capture, priors: priors, masks: masks,
                                           workspace: workspace, detail: detail, threads: threads)
        }
        try ModelExporter.write(result.model, to: layout.modelFiles)
        print("textured from \(result.views) views: \(result.charts) charts on a \(result.pageSize)² page, "
              + "\(result.untexturedFaces) faces seen by none (\(String(format: "%.1f", Date().timeIntervalSince(started))) s, peak memory \(MeshCommand.peakMemoryText))")
        for target in layout.modelFiles { print("wrote \(target.path)") }
    }
}

/// The working folders of one `texture` run, removed when it ends.
///
/// The undistorted views and an unpacked zip are worth nothing once the model is written, and
/// a folder left behind is one more place a later run would have to trust. The SfM checkpoints
/// of `--poses sfm` are what a rerun resumes from, so a failed run keeps them.
struct TextureWorkspace: Sendable {
    let layout: OutputLayout

    /// After a failure: everything but the SfM checkpoints.
    func removeAfterFailure() {
        OutputFolder.removeOwned(layout.work.appendingPathComponent("texture", isDirectory: true))
        CaptureLoader.removeUnpackedInput(workspace: layout.work)
        OutputFolder.removeIfEmpty(layout.work)
        if layout.modelFile != nil { OutputFolder.removeIfEmpty(layout.root) }
    }

    /// After success: the whole working folder, and the folder beside a single-file OUTPUT.
    func removeAfterSuccess() {
        OutputFolder.removeOwned(layout.work)
        if layout.modelFile != nil { OutputFolder.removeIfEmpty(layout.root) }
    }
}
