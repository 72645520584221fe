import Foundation

/// Wavefront OBJ: `v` lines are vertices, each `f` of n corners is n - 2 triangles, and the
/// material libraries' `map_Kd` images are the texture pages.
extension ModelStats {
    static func obj(_ data: Data, name: String, folder: URL) throws -> ModelStats {
        var vertices = 0, triangles = 0
        var low = SIMD3<Double>(repeating: .infinity), high = SIMD3<Double>(repeating: -.infinity)
        var libraries: [String] = []
        var sawGeometry = false
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var lineStart = 0
            let n = raw.count
            while lineStart < n {
                var lineEnd = lineStart
                while lineEnd < n, raw[lineEnd] != 0x0A { lineEnd += 1 }
                let first = raw[lineStart]
                if first == UInt8(ascii: "v"), lineStart + 1 < lineEnd, raw[lineStart + 1] == 0x20 || raw[lineStart + 1] == 0x09 {
                    vertices += 1
                    sawGeometry = true
                    let values = numbers(in: ArraySlice(raw[(lineStart + 2)..<lineEnd]))
                    if values.count >= 3 {
                        let p = SIMD3(values[0], values[1], values[2])
                        low = pointwiseMin(low, p)
                        high = pointwiseMax(high, p)
                    }
                } else if first == UInt8(ascii: "f"), lineStart + 1 < lineEnd, raw[lineStart + 1] == 0x20 || raw[lineStart + 1] == 0x09 {
                    var corners = 0, inWord = false
                    for i in (lineStart + 1)..<lineEnd {
                        let space = raw[i] == 0x20 || raw[i] == 0x09 || raw[i] == 0x0D
                        if !space, !inWord { corners += 1 }
                        inWord = !space
                    }
                    if corners >= 3 { triangles += corners - 2 }
                } else if first == UInt8(ascii: "m"), lineEnd - lineStart > 7,
                          String(decoding: UnsafeRawBufferPointer(rebasing: raw[lineStart..<(lineStart + 7)]), as: UTF8.self) == "mtllib " {
                    let rest = String(decoding: UnsafeRawBufferPointer(rebasing: raw[(lineStart + 7)..<lineEnd]), as: UTF8.self)
                    libraries.append(rest.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                lineStart = lineEnd + 1
            }
        }
        guard sawGeometry || data.isEmpty == false else { throw ModelStatsError(message: "\(name): empty OBJ file") }
        guard sawGeometry else { throw ModelStatsError(message: "\(name): no vertices (not an OBJ file?)") }
        var textures: [TextureSize] = []
        for library in libraries where !library.contains("..") {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(library), encoding: .utf8) else { continue }
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("map_Kd ") {
                let image = line.dropFirst(7).trimmingCharacters(in: .whitespaces)
                let bytes = image.contains("..") ? nil : try? Data(contentsOf: folder.appendingPathComponent(image))
                textures.append(bytes.flatMap(imageSize) ?? TextureSize(width: 0, height: 0))
            }
        }
        let bounds = vertices > 0 && low.x.isFinite ? BoundingBox(min: low, max: high) : nil
        return ModelStats(file: name, format: .obj, vertices: vertices, triangles: triangles, bounds: bounds,
                          metersPerUnit: nil, textures: textures, fileBytes: 0)
    }
}
