import Foundation
import PhotogrammetryCore

/// Wavefront OBJ, parsed and checked as the reader does (``ModelReader/objGeometry(_:name:)``):
/// `v` lines are vertices, each `f` of n corners is n - 2 triangles, and the material
/// libraries' `map_Kd` images are the texture pages; metres only when a leading comment says so.
extension ModelStats {
    package static func obj(_ data: Data, name: String, folder: URL) throws -> ModelStats {
        let geometry = try ModelReader.objGeometry(data, name: name)
        var textures: [TextureSize] = []
        for library in geometry.libraries where !library.contains("..") {
            guard let bytes = RegularFile.contentsIfReadable(folder.appendingPathComponent(library)) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("map_Kd ") {
                let image = line.dropFirst(7).trimmingCharacters(in: .whitespaces)
                let bytes = image.contains("..") ? nil : RegularFile.contentsIfReadable(folder.appendingPathComponent(image))
                textures.append(bytes.flatMap(imageSize) ?? TextureSize(width: 0, height: 0))
            }
        }
        return ModelStats(file: name, format: .obj, vertices: geometry.positions.count, triangles: geometry.corners.count / 3,
                          bounds: BoundingBox(around: geometry.positions), metersPerUnit: geometry.lengthUnit == .metres ? 1 : nil,
                          textures: textures, fileBytes: 0)
    }
}
