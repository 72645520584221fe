import Foundation

/// Writes a ``MeshModel`` in the format a file's extension names, atomically: each file goes
/// to a temporary name in its folder and is renamed into place, so a reader (or a crash) never
/// sees half a model.
public enum ModelExporter {
    /// Writes `model` to `url` (`.usdz`, `.glb`, `.obj` with its `.mtl` and texture beside it,
    /// `.ply`, `.stl`).
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
            if let texture = model.material.texture { entries.append(.init(name: texture.fileName, data: texture.data)) }
            try writeAtomically(StoredZip.archive(entries), to: url)
        case .glb:
            try writeAtomically(GLBWriter.data(model), to: url)
        case .obj:
            let library = url.deletingPathExtension().appendingPathExtension("mtl")
            if let texture = model.material.texture {
                try writeAtomically(texture.data, to: url.deletingLastPathComponent().appendingPathComponent(texture.fileName))
            }
            try writeAtomically(Data(OBJWriter.mtl(model.material).utf8), to: library)
            try writeAtomically(Data(OBJWriter.obj(model, materialLibrary: library.lastPathComponent).utf8), to: url)
        case .ply:
            let mesh = try PointCloud(points: model.positions, normals: model.normals, colors: model.colors,
                                      triangles: model.triangles)
            do {
                try mesh.save(to: url)  // the core writes through a temporary name and a rename
            } catch {
                throw ModelExportError(message: "\(url.path): cannot write (\(error))")
            }
        case .stl:
            try writeAtomically(STLWriter.data(model), to: url)
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
