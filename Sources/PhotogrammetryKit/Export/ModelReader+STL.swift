import Foundation

/// STL, binary or ascii: three corners per triangle (vertices are not shared), grey, since STL
/// has no colours.
extension ModelReader {
    static func stl(_ data: Data, name: String) throws -> MeshModel {
        let corners = try stlCorners(data, name: name)
        var triangles: [SIMD3<Int32>] = []
        triangles.reserveCapacity(corners.count / 3)
        for t in 0..<Int32(corners.count / 3) { triangles.append(SIMD3<Int32>(3 * t, 3 * t + 1, 3 * t + 2)) }
        return try model(positions: corners, colors: nil, uvs: nil, triangles: triangles, texture: nil, name: name)
    }

    /// The triangles' corners, three per triangle, of a binary (80-byte header, count, 50 bytes
    /// a triangle) or ascii (`facet` ... `vertex`) STL file (``ModelStats`` reads the same).
    static func stlCorners(_ data: Data, name: String) throws -> [SIMD3<Float>] {
        var corners: [SIMD3<Float>] = []
        let reader = ByteReader(data, name: name)
        if data.count >= 84, 84 + 50 * Int(try reader.u32(80)) == data.count {
            let count = Int(try reader.u32(80))
            corners.reserveCapacity(3 * count)
            for t in 0..<count {
                for k in 0..<3 {
                    let at = 84 + 50 * t + 12 + 12 * k
                    corners.append(SIMD3(try reader.f32(at), try reader.f32(at + 4), try reader.f32(at + 8)))
                }
            }
        } else if data.starts(with: Array("solid".utf8)) {
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard words.first == "vertex", words.count >= 4,
                      let x = Float(words[1]), let y = Float(words[2]), let z = Float(words[3]) else { continue }
                corners.append(SIMD3(x, y, z))
            }
            guard corners.count % 3 == 0 else { throw ModelStatsError(message: "\(name): ascii STL facets without three vertices") }
        } else {
            throw ModelStatsError(message: "\(name): not an STL file (binary size does not match its triangle count, no 'solid' header)")
        }
        return corners
    }
}
