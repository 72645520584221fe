import Foundation
import PhotogrammetryCore

/// glTF 2.0 binary: the JSON chunk's meshes, each primitive's POSITION accessor and indices read
/// from the binary chunk through the reader's checks (counts against buffer views, indices
/// against the vertices, finite positions), the box taken from the positions themselves (an
/// accessor's declared min/max is a claim, not a measurement), images from the binary chunk or
/// beside the file. glTF is metres, unless `asset.extras` says the unit is unknown.
extension ModelStats {
    package static func glb(_ data: Data, name: String, folder: URL) throws -> ModelStats {
        let file = try ModelReader.GLBFile(data, name: name)
        var vertices = 0, triangles = 0
        var low = SIMD3<Double>(repeating: .infinity), high = -low
        for mesh in file.json["meshes"] as? [[String: Any]] ?? [] {
            for primitive in mesh["primitives"] as? [[String: Any]] ?? [] {
                let geometry = try file.geometry(of: primitive)
                let positions = geometry.positions
                vertices += positions.count / 3
                for i in stride(from: 0, to: positions.count, by: 3) {
                    let p = SIMD3(positions[i], positions[i + 1], positions[i + 2])
                    low = pointwiseMin(low, p)
                    high = pointwiseMax(high, p)
                }
                let elements = geometry.indices?.count ?? positions.count / 3
                switch primitive["mode"] as? Int ?? 4 {
                case 4: triangles += elements / 3
                case 5, 6: triangles += max(0, elements - 2)
                default: break  // points and lines have no triangles
                }
            }
        }
        let bounds = vertices > 0 ? BoundingBox(min: low, max: high) : nil
        let textures: [TextureSize] = try (file.json["images"] as? [[String: Any]] ?? []).enumerated().map { index, image in
            var bytes = try file.imageBytes(image, index: index)
            if bytes == nil, let uri = image["uri"] as? String, !uri.hasPrefix("data:"), !uri.contains("..") {
                bytes = RegularFile.contentsIfReadable(folder.appendingPathComponent(uri.removingPercentEncoding ?? uri))
            }
            return bytes.flatMap(imageSize) ?? TextureSize(width: 0, height: 0)
        }
        return ModelStats(file: name, format: .glb, vertices: vertices, triangles: triangles, bounds: bounds,
                          metersPerUnit: file.lengthUnit == .metres ? 1 : nil, textures: textures, fileBytes: 0)
    }
}
