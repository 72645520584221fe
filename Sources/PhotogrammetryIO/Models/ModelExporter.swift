import Foundation
import PhotogrammetryCore

/// Writes a ``MeshModel`` in the format a file's extension names, atomically: each file goes
/// to a temporary name in its folder and is renamed into place, so a reader (or a crash) never
/// sees half a model.
public enum ModelExporter {
    /// Writes `model` to `url` (`.usdz`, `.glb`, `.obj` with its `.mtl` and textures beside it,
    /// `.ply` with its textures beside it, `.stl`), each file recording the model's
    /// ``MeshModel/lengthUnit`` in its own form (``LengthUnit``).
    /// - Throws: ``ModelExportError`` naming the file for an unknown extension, a malformed
    ///   model, or a failed write.
    public static func write(_ model: MeshModel, to url: URL) throws {
        try write(model, to: [url])
    }

    /// Writes `model` to every file of `urls` as one set: all are written under temporary names
    /// first and renamed into place together, so a failure (a full disk at the last file) leaves
    /// the set as it was before, not new files beside old ones.
    public static func write(_ model: MeshModel, to urls: [URL]) throws {
        let staged = StagedFiles()
        for url in urls { try write(model, to: url, staged: staged) }
        do {
            try staged.commit()
        } catch PipelineError.io(let message) {
            throw ModelExportError(message: message)
        }
    }

    /// Writes the files of `url` into `staged`.
    package static func write(_ model: MeshModel, to url: URL, staged: StagedFiles) throws {
        guard let format = ModelFormat(url: url) else {
            throw ModelExportError(message: "\(url.path): unknown model format '.\(url.pathExtension)' (want \(ModelFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        try model.validate()
        switch format {
        case .usdz:
            try stage(USDZPackage.data(model, url: url), to: url, in: staged)
        case .glb:
            try stage(GLBWriter.data(model), to: url, in: staged)
        case .obj:
            let library = url.deletingPathExtension().appendingPathExtension("mtl")
            try stageTextures(of: model, beside: url, in: staged)
            try stage(Data(OBJWriter.mtl(model).utf8), to: library, in: staged)
            try stage(Data(OBJWriter.obj(model, materialLibrary: library.lastPathComponent).utf8), to: url, in: staged)
        case .ply:
            try stageTextures(of: model, beside: url, in: staged)
            try stage(PLYWriter.data(model), to: url, in: staged)
        case .stl:
            try stage(STLWriter.data(model), to: url, in: staged)
        }
    }

    /// Writes the model's texture pages into the folder of `url` (OBJ and PLY name them).
    static func stageTextures(of model: MeshModel, beside url: URL, in staged: StagedFiles) throws {
        for texture in model.textures {
            try stage(texture.data, to: url.deletingLastPathComponent().appendingPathComponent(texture.fileName), in: staged)
        }
    }

    /// Writes `data` for `url` into `staged`, its failure as a ``ModelExportError`` with the same
    /// one-line message.
    package static func stage(_ data: Data, to url: URL, in staged: StagedFiles) throws {
        do {
            try staged.write(data, to: url)
        } catch PipelineError.io(let message) {
            throw ModelExportError(message: message)
        }
    }
}
