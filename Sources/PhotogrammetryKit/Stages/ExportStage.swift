import Foundation
import PhotogrammetryCore
import PhotogrammetryIO
import PhotogrammetrySparse

/// Stage 14: every model as a COLMAP text model (`sparse/`, `sparse-2/`, ...), published as a
/// set, and the largest one's views as nerfstudio's `transforms.json`.
///
/// Each model is written into a temporary folder beside its target and renamed over it, so
/// `sparse/` holds one whole model at every moment (an old one or the new one); models of an
/// earlier run beyond this run's count are removed. Written before the dense stage: a failure
/// there leaves the sparse model whole.
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
            try Self.publish(layout.sparse(n)) { try model.writeColmapText(to: $0) }
        }
        for n in models.count... {
            let stale = layout.sparse(n)
            guard FileManager.default.fileExists(atPath: stale.path) else { break }
            try FileManager.default.removeItem(at: stale)
        }
        if let model = models.first {
            let prefix = Self.imageFolderPrefix(scene.capture)
            try writeAtomically(try NerfstudioTransforms(model, filePath: { prefix + $0 }).jsonData(), to: layout.transformsJSON)
        } else {
            try? FileManager.default.removeItem(at: layout.transformsJSON)
        }
        return Output(folders: models.indices.map(OutputLayout.sparseFolderName))
    }

    /// The image folder's path inside the capture with a trailing slash (`images/`), or "" when
    /// the images are at the capture's top.
    static func imageFolderPrefix(_ capture: Capture) -> String {
        let root = capture.root.standardizedFileURL.path, images = capture.imageRoot.standardizedFileURL.path
        guard images.hasPrefix(root + "/") else { return "" }
        return String(images.dropFirst(root.count + 1)) + "/"
    }

    /// A loaded output stands only while its folders still hold their models.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        for folder in output.folders {
            for file in ["cameras.txt", "images.txt", "points3D.txt"] {
                let url = context.layout.root.appendingPathComponent(folder).appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else { throw PipelineError.io("\(url.path) is missing") }
            }
        }
        guard output.folders.count == scene.models.count,
              !FileManager.default.fileExists(atPath: context.layout.sparse(scene.models.count).path) else {
            throw PipelineError.io("the sparse folders are not this run's")
        }
        if !scene.models.isEmpty, !FileManager.default.fileExists(atPath: context.layout.transformsJSON.path) {
            throw PipelineError.io("\(context.layout.transformsJSON.path) is missing")
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
