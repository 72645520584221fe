import Foundation

/// Wavefront OBJ: `v x y z [r g b]` (colours 0–1, or 0–255 when any exceeds 1), `vt u v`, faces
/// `f v`, `f v/vt`, `f v//vn`, `f v/vt/vn` (negative indices count back; polygons become fans),
/// and the `map_Kd` images of the `mtllib` libraries beside the file: with one material (or
/// none named), the first image; with several `usemtl` materials, each its own (a multi-page
/// atlas). A vertex used with different texture coordinates is split, one vertex per pair.
extension ModelReader {
    static func obj(_ data: Data, name: String, folder: URL) throws -> MeshModel {
        var positions: [SIMD3<Float>] = []
        var rawColors: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        var corners: [SIMD2<Int32>] = []  // (v, vt) per triangle corner, 0-based, vt -1 when absent
        var libraries: [String] = []
        var materialNames: [String] = [], materialOfIndex: [String: Int32] = [:]
        var currentMaterial: Int32 = -1  // faces before any `usemtl` belong to a nameless one
        var triangleMaterials: [Int32] = []
        func materialIndex(_ material: String) -> Int32 {
            if let known = materialOfIndex[material] { return known }
            materialOfIndex[material] = Int32(materialNames.count)
            materialNames.append(material)
            return Int32(materialNames.count - 1)
        }
        var malformed: String?
        var bytes = [UInt8](data)
        bytes.append(0)  // strtod stops at the terminator
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let n = buffer.count - 1
            var values = [Double]()
            var polygon = [SIMD2<Int32>]()
            var at = 0
            func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
            while at < n, malformed == nil {
                var end = at
                while end < n, buffer[end] != 0x0A { end += 1 }
                var i = at
                while i < end, isBlank(buffer[i]) { i += 1 }
                let keyStart = i
                while i < end, !isBlank(buffer[i]) { i += 1 }
                let key = end > keyStart ? (buffer[keyStart], i - keyStart > 1 ? buffer[keyStart + 1] : 0, i - keyStart) : (0, 0, 0)
                /// The numbers after the keyword up to the line's end.
                func numbers() {
                    values.removeAll(keepingCapacity: true)
                    var j = i
                    while j < end {
                        while j < end, isBlank(buffer[j]) { j += 1 }
                        if j >= end { break }
                        var stop: UnsafeMutablePointer<CChar>?
                        let value = strtod(base + j, &stop)
                        let next = stop.map { UnsafePointer($0) - base } ?? j
                        if next <= j || next > end { break }
                        values.append(value)
                        j = next
                    }
                }
                switch key {
                case (UInt8(ascii: "v"), 0, 1):
                    numbers()
                    guard values.count >= 3 else { malformed = "a 'v' line without three coordinates"; break }
                    positions.append(SIMD3(Float(values[0]), Float(values[1]), Float(values[2])))
                    if values.count >= 6 { rawColors.append(SIMD3(Float(values[3]), Float(values[4]), Float(values[5]))) }
                case (UInt8(ascii: "v"), UInt8(ascii: "t"), 2):
                    numbers()
                    guard values.count >= 2 else { malformed = "a 'vt' line without two coordinates"; break }
                    texcoords.append(SIMD2(Float(values[0]), Float(values[1])))
                case (UInt8(ascii: "f"), 0, 1):
                    polygon.removeAll(keepingCapacity: true)
                    var j = i
                    while j < end {
                        while j < end, isBlank(buffer[j]) { j += 1 }
                        if j >= end { break }
                        // One corner: v[/vt[/vn]].
                        var fields: [Int] = [0, 0, 0]
                        var field = 0, value = 0, sign = 1, digits = 0
                        while j < end, !isBlank(buffer[j]) {
                            let c = buffer[j]
                            if c == UInt8(ascii: "/") {
                                if field < 3 { fields[field] = sign * value }
                                field += 1; value = 0; sign = 1
                            } else if c == UInt8(ascii: "-") {
                                sign = -1
                            } else if c >= 0x30, c <= 0x39 {
                                value = value * 10 + Int(c - 0x30); digits += 1
                            } else {
                                malformed = "a face corner that is not v/vt/vn"
                            }
                            j += 1
                        }
                        if field < 3 { fields[field] = sign * value }
                        func resolve(_ index: Int, _ count: Int) -> Int32 {
                            index > 0 ? Int32(clamping: index - 1) : index < 0 ? Int32(clamping: count + index) : -1
                        }
                        polygon.append(SIMD2(resolve(fields[0], positions.count), resolve(fields[1], texcoords.count)))
                    }
                    if polygon.count >= 3 {
                        if currentMaterial < 0 { currentMaterial = materialIndex("") }
                        for k in 1..<(polygon.count - 1) {
                            corners += [polygon[0], polygon[k], polygon[k + 1]]
                            triangleMaterials.append(currentMaterial)
                        }
                    }
                case (UInt8(ascii: "u"), UInt8(ascii: "s"), 6) where buffer[keyStart..<i].elementsEqual("usemtl".utf8):
                    let material = String(decoding: buffer[i..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    currentMaterial = materialIndex(material)
                case (UInt8(ascii: "m"), UInt8(ascii: "t"), 6) where buffer[keyStart..<i].elementsEqual("mtllib".utf8):
                    let rest = String(decoding: buffer[i..<end], as: UTF8.self)
                    libraries.append(rest.trimmingCharacters(in: .whitespacesAndNewlines))
                default:
                    break
                }
                at = end + 1
            }
        }
        if let malformed { throw ModelStatsError(message: "\(name): malformed OBJ (\(malformed))") }
        guard !positions.isEmpty else { throw ModelStatsError(message: "\(name): no vertices (not an OBJ file?)") }
        for c in corners where c.x < 0 || Int(c.x) >= positions.count || Int(c.y) >= texcoords.count {
            throw ModelStatsError(message: "\(name): a face refers to a missing vertex or texture coordinate")
        }

        var colors: [SIMD3<UInt8>]?
        if rawColors.count == positions.count {
            let scale: Float = rawColors.contains { $0.max() > 1 } ? 1 : 255
            colors = rawColors.map { c in
                let v = (c * scale).rounded(.toNearestOrAwayFromZero).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255))
                return SIMD3(UInt8(v.x), UInt8(v.y), UInt8(v.z))
            }
        }
        let textured = !texcoords.isEmpty && corners.allSatisfy { $0.y >= 0 }
        var textures: [MeshMaterial.Texture?] = []
        if textured {
            if materialNames.count > 1 {
                let files = try mtlTextureFiles(libraries, folder: folder, name: name)
                textures = try materialNames.map { material in
                    try files[material].map { try mtlTexture($0.image, library: $0.library, folder: folder, name: name) }
                }
            } else {
                textures = [try mtlTexture(libraries, folder: folder, name: name)]
            }
        }
        let materialOfTriangle = textures.count > 1 ? triangleMaterials : nil
        var triangles: [SIMD3<Int32>] = []
        triangles.reserveCapacity(corners.count / 3)
        guard textured else {
            for k in stride(from: 0, to: corners.count, by: 3) { triangles.append(SIMD3(corners[k].x, corners[k + 1].x, corners[k + 2].x)) }
            return try model(positions: positions, colors: colors, uvs: nil, triangles: triangles, texture: nil, name: name)
        }
        // One vertex per (position, texture coordinate) pair; our own files pair them 1:1.
        var outPositions: [SIMD3<Float>] = [], outColors: [SIMD3<UInt8>] = [], outUVs: [SIMD2<Float>] = []
        var index: [SIMD2<Int32>: Int32] = [:]
        let identity = texcoords.count == positions.count && corners.allSatisfy { $0.x == $0.y }
        var mapped = [Int32]()
        mapped.reserveCapacity(corners.count)
        if identity {
            (outPositions, outUVs) = (positions, texcoords)
            outColors = colors ?? []
            mapped = corners.map(\.x)
        } else {
            for c in corners {
                if let existing = index[c] { mapped.append(existing); continue }
                let new = Int32(outPositions.count)
                index[c] = new
                outPositions.append(positions[Int(c.x)])
                outUVs.append(texcoords[Int(c.y)])
                if let colors { outColors.append(colors[Int(c.x)]) }
                mapped.append(new)
            }
        }
        for k in stride(from: 0, to: mapped.count, by: 3) { triangles.append(SIMD3(mapped[k], mapped[k + 1], mapped[k + 2])) }
        return try model(positions: outPositions, colors: colors == nil ? nil : outColors, uvs: outUVs,
                         triangles: triangles, textures: textures, materialOfTriangle: materialOfTriangle, name: name)
    }

    /// The first `map_Kd` image of the material libraries (nil when none names one).
    /// - Throws: when a library names an image that is missing.
    private static func mtlTexture(_ libraries: [String], folder: URL, name: String) throws -> MeshMaterial.Texture? {
        for library in libraries where !library.contains("..") {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(library), encoding: .utf8) else { continue }
            for line in text.split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard words.first == "map_Kd", let file = words.last, words.count >= 2 else { continue }
                return try mtlTexture(String(file), library: library, folder: folder, name: name)
            }
        }
        return nil
    }

    /// Each material's `map_Kd` image (and the library naming it), by material name.
    private static func mtlTextureFiles(_ libraries: [String], folder: URL,
                                        name: String) throws -> [String: (image: String, library: String)] {
        var files: [String: (image: String, library: String)] = [:]
        for library in libraries where !library.contains("..") {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(library), encoding: .utf8) else { continue }
            var material = ""
            for line in text.split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if words.first == "newmtl" { material = words.dropFirst().joined(separator: " ") }
                guard words.first == "map_Kd", let file = words.last, words.count >= 2 else { continue }
                files[material] = (String(file), library)
            }
        }
        return files
    }

    /// The image `library` names, read from beside the model.
    private static func mtlTexture(_ image: String, library: String, folder: URL, name: String) throws -> MeshMaterial.Texture {
        guard !image.contains(".."), let bytes = try? Data(contentsOf: folder.appendingPathComponent(image)) else {
            throw ModelStatsError(message: "\(name): the texture \(image) that \(library) names is missing")
        }
        return texture(bytes, fileName: (image as NSString).lastPathComponent)
    }
}
