import Foundation
import PhotogrammetryCore
import PhotogrammetryIO
import PhotogrammetrySparse

/// Stage 14: every model as a COLMAP model, text and binary (`sparse/`, `sparse-2/`, ...),
/// published as a set, and the largest one for splatting, NeRF tools and viewers: its views as
/// nerfstudio's `transforms.json` with their images in `images/` (``writeImages(_:paths:into:)``),
/// its points as `sparse_pc.ply` (the file's `ply_file_path`) and its cameras as `cameras.ply`.
///
/// Each model is written into a temporary folder beside its target and renamed over it, so
/// `sparse/` holds one whole model at every moment (an old one or the new one); models of an
/// earlier run beyond this run's count are removed. `images/` is published the same way, before
/// `transforms.json` names it. Written before the dense stage: a failure there leaves the sparse
/// model whole.
public struct ExportStage: CheckpointedStage {
    /// The folders written, `sparse` first.
    public struct Output: Codable {
        public var folders: [String]
    }

    public static let name = "export"
    public let options = NoStageOptions()

    public init() {}

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let layout = context.layout, models = scene.models
        for (n, model) in models.enumerated() {
            try Self.publish(layout.sparse(n)) { try model.writeColmap(to: $0) }
        }
        for n in models.count... {
            let stale = layout.sparse(n)
            guard FileManager.default.fileExists(atPath: stale.path) else { break }
            try FileManager.default.removeItem(at: stale)
        }
        if let model = models.first {
            let registered = Set(model.images.values.filter(\.isRegistered).map(\.name))
            let images = scene.capture.images.filter { registered.contains($0.name) }
            let paths = Self.exportedImagePaths(images)
            try Self.publish(layout.images) { _ = try Self.writeImages(images, paths: paths, into: $0) }
            let folder = layout.images.lastPathComponent + "/"
            let transforms = NerfstudioTransforms(model, filePath: { folder + (paths[$0] ?? $0) },
                                                  plyFilePath: layout.sparsePointsPLY.lastPathComponent)
            // The three renamed into place together: transforms.json never names another run's cloud.
            let staged = StagedFiles()
            try staged.write(SparsePointsPLY.data(model), to: layout.sparsePointsPLY)
            try staged.write(CameraFrustaPLY.data(model), to: layout.cameraFrusta)
            try staged.write(try transforms.jsonData(), to: layout.transformsJSON)
            try staged.commit()
        } else {
            for url in [layout.transformsJSON, layout.sparsePointsPLY, layout.cameraFrusta] { try? FileManager.default.removeItem(at: url) }
            OutputFolder.removeOwned(layout.images)
        }
        return Output(folders: models.indices.map(OutputLayout.sparseFolderName))
    }

    /// A loaded output stands only while its folders still hold their models.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        for folder in output.folders {
            for file in ["cameras", "images", "points3D"].flatMap({ ["\($0).txt", "\($0).bin"] }) {
                let url = context.layout.root.appendingPathComponent(folder).appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else { throw PipelineError.io("\(url.path) is missing") }
            }
        }
        guard output.folders.count == scene.models.count,
              !FileManager.default.fileExists(atPath: context.layout.sparse(scene.models.count).path) else {
            throw PipelineError.io("the sparse folders are not this run's")
        }
        guard !scene.models.isEmpty else { return }
        let layout = context.layout
        for url in [layout.transformsJSON, layout.sparsePointsPLY, layout.cameraFrusta] where !FileManager.default.fileExists(atPath: url.path) {
            throw PipelineError.io("\(url.path) is missing")
        }
        // Every image transforms.json names must still be there (images/ is OUTPUT's to edit).
        guard let transforms = try? NerfstudioTransforms.read(from: layout.transformsJSON) else {
            throw PipelineError.io("\(layout.transformsJSON.path) cannot be read")
        }
        for frame in transforms.frames where !FileManager.default.fileExists(atPath: layout.root.appendingPathComponent(frame.filePath).path) {
            throw PipelineError.io("\(layout.root.appendingPathComponent(frame.filePath).path) is missing")
        }
    }

    /// Writes a folder through `write` into `.NAME.PID.tmp` beside `folder`, then puts it in
    /// place with two renames (the old folder aside, the new one in); the old one is removed.
    static func publish(_ folder: URL, _ write: (URL) throws -> Void) throws {
        let fm = FileManager.default
        let parent = folder.deletingLastPathComponent(), name = folder.lastPathComponent
        let pid = ProcessInfo.processInfo.processIdentifier
        let temporary = parent.appendingPathComponent(".\(name).\(pid).tmp", isDirectory: true)
        let old = parent.appendingPathComponent(".\(name).old.\(pid).tmp", isDirectory: true)
        try? fm.removeItem(at: temporary)
        try? fm.removeItem(at: old)
        try fm.createDirectory(at: temporary, withIntermediateDirectories: true)
        do {
            try write(temporary)
            if fm.fileExists(atPath: folder.path) {
                guard rename(folder.path, old.path) == 0 else { throw PipelineError.io("\(folder.path): cannot move aside (\(String(cString: strerror(errno))))") }
            }
            guard rename(temporary.path, folder.path) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = rename(old.path, folder.path)
                throw PipelineError.io("\(folder.path): cannot publish (\(reason))")
            }
        } catch {
            try? fm.removeItem(at: temporary)
            throw error
        }
        try? fm.removeItem(at: old)
    }
}
