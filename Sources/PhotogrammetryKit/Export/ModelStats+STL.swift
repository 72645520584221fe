import Foundation

/// STL, binary (80-byte header, count, 50 bytes a triangle) or ascii (`facet` ... `vertex`):
/// vertices are the distinct corner positions, since STL repeats them per triangle.
extension ModelStats {
    static func stl(_ data: Data, name: String) throws -> ModelStats {
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
        var distinct = Set<SIMD3<UInt32>>()
        for c in corners { distinct.insert(SIMD3(c.x.bitPattern, c.y.bitPattern, c.z.bitPattern)) }
        return ModelStats(file: name, format: .stl, vertices: distinct.count, triangles: corners.count / 3,
                          bounds: BoundingBox(around: corners), metersPerUnit: nil, textures: [], fileBytes: 0)
    }
}
