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
        let mode = try PipelineArguments.progressMode(from: parsed)
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
        let cleanup = TextureWorkspace(layout: layout)
        try OutputFolder.refuseOverlap(input: input, output: cleanup.ownFolder)
        // Held until the run ends: a second run to the same OUTPUT is refused before it can touch
        // (or remove) this one's working files.
        let lock = try cleanup.prepare()
        defer { withExtendedLifetime(lock) {} }
        let printer = ProgressPrinter(mode: mode)
        try RunClosing.run(printer) {
            do {
                // A signal ends the run as a failure does: the views and unpacked zip go, --poses
                // sfm's checkpoints stay for the rerun.
                try Interruption.whileRunning(cleanup: { cleanup.removeAfterFailure() }) {
                    try run(parsed, mesh: mesh, meshURL: meshURL, input: input, layout: layout, detail: detail,
                            threads: threads, fromStructureFromMotion: fromStructureFromMotion, started: started, printer: printer)
                }
            } catch {
                cleanup.removeAfterFailure()
                throw error
            }
            cleanup.removeAfterSuccess()
            printer.close(.finished(.init(status: "complete",
                                          outputs: RunClosing.existing(layout.modelFiles.map { (RunClosing.modelOutputName($0), $0) }),
                                          figures: .init(triangles: mesh.triangles.count))))
        }
    }

    /// Reads the capture and its priors, textures `mesh` and writes the model files.
    static func run(_ parsed: ArgumentParser.Parsed, mesh: MeshModel, meshURL: URL, input: URL, layout: OutputLayout,
                    detail: DetailLevel, threads: Int, fromStructureFromMotion: Bool, started: Date,
                    printer: ProgressPrinter) throws {
        // Standard output carries the JSON lines with --progress json; the summary goes beside them.
        let say = MeshCommand.summaryOutput(printer.mode)
        let work = layout.textureWork
        let capture = try CaptureLoader.load(input: input, workspace: work,
                                             excluding: TextureWorkspace(layout: layout).ownFolder)
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
        say("mesh: \(meshURL.path): \(mesh.triangles.count) triangles, \(mesh.positions.count) vertices")
        say("capture: \(capture.images.count) images, \(priors.summary)")

        let workspace = work.appendingPathComponent("texture", isDirectory: true)
        let result: MeshTexturing.Result
        if fromStructureFromMotion {
            let sfm = work.appendingPathComponent("sfm", isDirectory: true)
            say("poses: structure from motion with the priors in \(sfm.path) ...")
            let aligned = try MeshTexturing.structureFromMotionPoses(mesh: mesh, input: input, capture: capture, priors: priorsURL,
                                                                     mask: maskSelection, workspace: sfm, threads: threads,
                                                                     progress: printer)
            let fit = aligned.fit
            say(String(format: "poses: %d of %d images registered; aligned to the mesh by %d points: scale %.4f, "
                         + "%.0f%% of the points on the surface, RMS %.3g", aligned.posed.count, capture.images.count, aligned.points,
                         fit.similarity.scale, 100 * fit.fitness, fit.rmse))
            // After the SfM of --poses sfm, which announced its own stages.
            result = try RunClosing.stage("texture", after: ["sfm"], printer) {
                try MeshTexturing.run(mesh: mesh, posed: aligned.posed, masks: masks, workspace: workspace,
                                      detail: detail, threads: threads)
            }
        } else {
            result = try RunClosing.stage("texture", printer) {
                try MeshTexturing.run(mesh: mesh, capture: capture, priors: priors, masks: masks,
                                      workspace: workspace, detail: detail, threads: threads)
            }
        }
        try ModelExporter.write(result.model, to: layout.modelFiles)
        say("textured from \(result.views) views: \(result.charts) charts on a \(result.pageSize)² page, "
              + "\(result.untexturedFaces) faces seen by none (\(String(format: "%.1f", Date().timeIntervalSince(started))) s, peak memory \(MeshCommand.peakMemoryText))")
        for target in layout.modelFiles { say("wrote \(target.path)") }
    }

}

/// The working folder of one `texture` run (``OutputLayout/textureWork``), its own: named after
/// OUTPUT, locked while the run works in it, removed when it ends.
///
/// The undistorted views and an unpacked zip are worth nothing once the model is written, and
/// a folder left behind is one more place a later run would have to trust. The SfM checkpoints
/// of `--poses sfm` are what a rerun resumes from, so a failed run keeps them.
struct TextureWorkspace: Sendable {
    let layout: OutputLayout

    /// The folder this run writes into besides the model files: a folder OUTPUT, or the working
    /// folder beside a single-file OUTPUT (what ingest leaves out when OUTPUT is inside INPUT).
    var ownFolder: URL { layout.modelFile == nil ? layout.root : layout.textureWork }

    /// Makes the folder that takes the model files (with its parents) and the working folder as
    /// a folder of the tool's own, and locks the working folder.
    /// - Throws: ``PipelineError/io(_:)`` in one line when a folder cannot be made, the working
    ///   folder is a planted link or another user's, or another run holds it.
    func prepare() throws -> FolderLock {
        try OutputFolder.prepare(layout.modelFile?.deletingLastPathComponent() ?? layout.root, work: nil)
        let output = layout.modelFile ?? layout.root
        try OutputFolder.makeOwned(layout.textureWork, output: output)
        guard let lock = try FolderLock(folder: layout.textureWork) else {
            throw PipelineError.io("cannot write OUTPUT \(output.path): another texture run to it is working in "
                                   + "\(layout.textureWork.path) (wait for it to end, or choose another OUTPUT)")
        }
        return lock
    }

    /// After a failure: everything but the SfM checkpoints.
    func removeAfterFailure() {
        let work = layout.textureWork
        OutputFolder.removeOwned(work.appendingPathComponent("texture", isDirectory: true))
        CaptureLoader.removeUnpackedInput(workspace: work)
        OutputFolder.removeIfEmpty(work)
    }

    /// After success: the whole working folder.
    func removeAfterSuccess() {
        OutputFolder.removeOwned(layout.textureWork)
    }
}
