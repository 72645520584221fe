import Foundation

/// glTF 2.0 binary: the JSON chunk's meshes (POSITION accessors, indices), the POSITION
/// accessors' min/max for the box (required by the spec), images from the binary chunk or
/// beside the file.
extension ModelStats {
    static func glb(_ data: Data, name: String, folder: URL) throws -> ModelStats {
        let (json, binary) = try ModelReader.glbChunks(data, name: name)
        let accessors = json["accessors"] as? [[String: Any]] ?? []
        func accessor(_ index: Any?) throws -> [String: Any] {
            guard let i = index as? Int, accessors.indices.contains(i) else {
                throw ModelStatsError(message: "\(name): a primitive refers to a missing accessor")
            }
            return accessors[i]
        }
        var vertices = 0, triangles = 0
        var bounds: BoundingBox?
        for mesh in json["meshes"] as? [[String: Any]] ?? [] {
            for primitive in mesh["primitives"] as? [[String: Any]] ?? [] {
                let attributes = primitive["attributes"] as? [String: Any] ?? [:]
                let position = try accessor(attributes["POSITION"])
                let count = position["count"] as? Int ?? 0
                vertices += count
                let elements = try primitive["indices"].map { try accessor($0)["count"] as? Int ?? 0 } ?? count
                switch primitive["mode"] as? Int ?? 4 {
                case 4: triangles += elements / 3
                case 5, 6: triangles += max(0, elements - 2)
                default: break  // points and lines have no triangles
                }
                if let lo = position["min"] as? [Double], let hi = position["max"] as? [Double], lo.count == 3, hi.count == 3 {
                    let box = BoundingBox(min: SIMD3(lo[0], lo[1], lo[2]), max: SIMD3(hi[0], hi[1], hi[2]))
                    bounds = bounds?.union(box) ?? box
                }
            }
        }
        let views = json["bufferViews"] as? [[String: Any]] ?? []
        let textures: [TextureSize] = (json["images"] as? [[String: Any]] ?? []).map { image in
            var bytes: Data?
            if let v = image["bufferView"] as? Int, views.indices.contains(v) {
                let offset = views[v]["byteOffset"] as? Int ?? 0, length = views[v]["byteLength"] as? Int ?? 0
                if offset >= 0, length >= 0, offset + length <= binary.count { bytes = binary.subdata(in: offset..<offset + length) }
            } else if let uri = image["uri"] as? String, !uri.hasPrefix("data:"), !uri.contains("..") {
                bytes = try? Data(contentsOf: folder.appendingPathComponent(uri.removingPercentEncoding ?? uri))
            }
            return bytes.flatMap(imageSize) ?? TextureSize(width: 0, height: 0)
        }
        return ModelStats(file: name, format: .glb, vertices: vertices, triangles: triangles, bounds: bounds,
                          metersPerUnit: 1, textures: textures, fileBytes: 0)
    }
}
