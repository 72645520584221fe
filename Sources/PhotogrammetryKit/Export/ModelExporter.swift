import Foundation

/// Writes a ``MeshModel`` in the format a file's extension names, atomically: each file goes
/// to a temporary name in its folder and is renamed into place, so a reader (or a crash) never
/// sees half a model.
public enum ModelExporter {
    /// Writes `model` to `url` (`.usdz`, `.glb`, `.obj` with its `.mtl` and textures beside it,
    /// `.ply` with its textures beside it, `.stl`).
    /// - Parameter metersPerUnit: what one unit of the model is (USDZ records it; glTF is
    ///   always metres, the other formats carry no unit).
    /// - Throws: ``ModelExportError`` naming the file for an unknown extension, a malformed
    ///   model, or a failed write.
    public static func write(_ model: MeshModel, to url: URL, metersPerUnit: Double = 1) throws {
        guard let format = ModelFormat(url: url) else {
            throw ModelExportError(message: "\(url.path): unknown model format '.\(url.pathExtension)' (want \(ModelFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        try model.validate()
        switch format {
        case .usdz:
            var entries = [StoredZip.Entry(name: USDAText.layerName, data: Data(USDAText.layer(model, metersPerUnit: metersPerUnit).utf8))]
            entries += model.textures.map { StoredZip.Entry(name: $0.fileName, data: $0.data) }
            try writeAtomically(StoredZip.archive(entries), to: url)
        case .glb:
            try writeAtomically(GLBWriter.data(model), to: url)
        case .obj:
            let library = url.deletingPathExtension().appendingPathExtension("mtl")
            try writeTextures(of: model, beside: url)
            try writeAtomically(Data(OBJWriter.mtl(model).utf8), to: library)
            try writeAtomically(Data(OBJWriter.obj(model, materialLibrary: library.lastPathComponent).utf8), to: url)
        case .ply:
            try writeTextures(of: model, beside: url)
            try writeAtomically(PLYWriter.data(model), to: url)
        case .stl:
            try writeAtomically(STLWriter.data(model), to: url)
        }
    }

    /// Writes the model's texture pages into the folder of `url` (OBJ and PLY name them).
    static func writeTextures(of model: MeshModel, beside url: URL) throws {
        for texture in model.textures {
            try writeAtomically(texture.data, to: url.deletingLastPathComponent().appendingPathComponent(texture.fileName))
        }
    }

    /// Writes `data` to `url` atomically (``PhotogrammetryKit/writeAtomically(_:to:)``), its
    /// failure as a ``ModelExportError`` with the same one-line message.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try PhotogrammetryKit.writeAtomically(data, to: url)
        } catch PipelineError.io(let message) {
            throw ModelExportError(message: message)
        }
    }
}
