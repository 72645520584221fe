import Foundation
import PhotogrammetryCore

/// STL, binary or ascii: three corners per triangle (vertices are not shared), grey, since STL
/// has no colours; metres only when the header text (a binary file's 80 bytes, an ascii file's
/// `solid` line) says `lengthUnit: metres`, else unknown.
extension ModelReader {
    package static func stl(_ data: Data, name: String) throws -> MeshModel {
        let corners = try stlCorners(data, name: name)
        var triangles: [SIMD3<Int32>] = []
        triangles.reserveCapacity(corners.count / 3)
        for t in 0..<Int32(corners.count / 3) { triangles.append(SIMD3<Int32>(3 * t, 3 * t + 1, 3 * t + 2)) }
        var surface = try model(positions: corners, colors: nil, uvs: nil, triangles: triangles, texture: nil, name: name)
        surface.lengthUnit = stlLengthUnit(data)
        return surface
    }

    /// The unit an STL header records (`lengthUnit: metres`, as ``STLWriter`` writes it in the
    /// binary header; an ascii file's first line is read the same way).
    static func stlLengthUnit(_ data: Data) -> LengthUnit {
        let header = String(decoding: data.prefix(80).prefix { $0 != 0x0A && $0 != 0 }, as: UTF8.self)
        return LengthUnit(unitlessFormatComment: LengthUnit.labelValue(in: header[...]))
    }

    /// The triangles' corners, three per triangle, of a binary (80-byte header, count, 50 bytes
    /// a triangle) or ascii (`facet` ... `vertex`) STL file (``ModelStats`` reads the same),
    /// every coordinate finite. A binary file is taken as one only when its size is exactly what
    /// its count says, so a lying count allocates nothing.
    static func stlCorners(_ data: Data, name: String) throws -> [SIMD3<Float>] {
        var corners: [SIMD3<Float>] = []
        let reader = ByteReader(data, name: name)
        let declared = data.count >= 84 ? Int(try reader.u32(80)) : -1
        if declared >= 0, 84 + 50 * declared == data.count {
            corners.reserveCapacity(3 * declared)
            for t in 0..<declared {
                for k in 0..<3 {
                    let at = 84 + 50 * t + 12 + 12 * k
                    corners.append(SIMD3(try reader.f32(at), try reader.f32(at + 4), try reader.f32(at + 8)))
                }
            }
        } else if data.starts(with: Array("solid".utf8)), !data.contains(0) {
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard words.first == "vertex", words.count >= 4,
                      let x = Float(words[1]), let y = Float(words[2]), let z = Float(words[3]) else { continue }
                corners.append(SIMD3(x, y, z))
            }
            guard corners.count % 3 == 0 else { throw ModelStatsError(message: "\(name): ascii STL facets without three vertices") }
        } else if declared >= 0 {
            // Binary (many binary files start with "solid" too, but no text holds a zero byte).
            throw ModelStatsError(message: "\(name): not a whole STL file (a binary STL of \(declared) triangles "
                                  + "is \(84 + 50 * declared) bytes, this file is \(data.count); no ascii 'solid' text)")
        } else {
            throw ModelStatsError(message: "\(name): not an STL file (shorter than a binary STL's 84-byte header, no 'solid' header)")
        }
        try ModelCheck.requireFinite(corners, name: name, what: "coordinate") { "triangle \($0 / 3) corner \($0 % 3)" }
        return corners
    }
}
