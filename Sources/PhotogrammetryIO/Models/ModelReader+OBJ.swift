import Foundation
import PhotogrammetryCore

/// Wavefront OBJ: `v x y z [r g b]` (colours 0–1, or 0–255 when any exceeds 1), `vt u v`, faces
/// `f v`, `f v/vt`, `f v//vn`, `f v/vt/vn` (negative indices count back; polygons become fans),
/// and the `map_Kd` images of the `mtllib` libraries beside the file: with one material (or
/// none named), the first image; with several `usemtl` materials, each its own (a multi-page
/// atlas). A vertex used with different texture coordinates is split, one vertex per pair. Metres
/// only when a leading comment says `# lengthUnit: metres`, else unknown.
extension ModelReader {
    /// What an OBJ file holds, as written, after the checks every OBJ reader applies: each `v`
    /// has three finite coordinates (and finite colours), each `vt` two finite values, and every
    /// face corner names a vertex and texture coordinate that exist (``ModelStats`` reads the
    /// same).
    struct OBJGeometry {
        package var positions: [SIMD3<Float>] = []
        /// The `v` lines' colours, when every `v` line has one (else empty).
        var rawColors: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        /// (v, vt) per triangle corner, 0-based, vt -1 when absent; polygons as fans.
        package var corners: [SIMD2<Int32>] = []
        var libraries: [String] = []
        /// The `usemtl` names in order of first use ("" for faces before any).
        var materialNames: [String] = []
        var triangleMaterials: [Int32] = []
        /// What the leading comments say (``objLengthUnit(_:)``).
        var lengthUnit = LengthUnit.unknown
    }

    /// Parses and checks an OBJ file's geometry.
    /// - Throws: naming the file and the line or element: a malformed line, a non-finite
    ///   value, a face corner that names a vertex or texture coordinate that is not there.
    static func objGeometry(_ data: Data, name: String) throws -> OBJGeometry {
        var g = OBJGeometry()
        var materialOfIndex: [String: Int32] = [:]
        var currentMaterial: Int32 = -1  // faces before any `usemtl` belong to a nameless one
        var colorLines = 0
        func materialIndex(_ material: String) -> Int32 {
            if let known = materialOfIndex[material] { return known }
            materialOfIndex[material] = Int32(g.materialNames.count)
            g.materialNames.append(material)
            return Int32(g.materialNames.count - 1)
        }
        // The largest vertex and texture coordinate a face names, and where: OBJ lets a face
        // come before the vertices it names, so the count is known only at the end.
        var furthest = (vertex: -1, vertexLine: 0, texcoord: -1, texcoordLine: 0)
        var malformed: String?
        var bytes = [UInt8](data)
        bytes.append(0)  // strtod stops at the terminator
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let n = buffer.count - 1
            var values = [Double]()
            var polygon = [SIMD2<Int32>]()
            var at = 0
            var lineNumber = 0
            func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
            while at < n, malformed == nil {
                lineNumber += 1
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
                    guard values.count >= 3 else { malformed = "line \(lineNumber): a 'v' line without three coordinates"; break }
                    g.positions.append(SIMD3(Float(values[0]), Float(values[1]), Float(values[2])))
                    if values.count >= 6 {
                        g.rawColors.append(SIMD3(Float(values[3]), Float(values[4]), Float(values[5])))
                        colorLines += 1
                    }
                case (UInt8(ascii: "v"), UInt8(ascii: "t"), 2):
                    numbers()
                    guard values.count >= 2 else { malformed = "line \(lineNumber): a 'vt' line without two coordinates"; break }
                    g.texcoords.append(SIMD2(Float(values[0]), Float(values[1])))
                case (UInt8(ascii: "f"), 0, 1):
                    polygon.removeAll(keepingCapacity: true)
                    var j = i
                    while j < end, malformed == nil {
                        while j < end, isBlank(buffer[j]) { j += 1 }
                        if j >= end { break }
                        // One corner: v[/vt[/vn]]; an empty field (v//vn) is absent.
                        var fields: [Int?] = [nil, nil, nil]
                        var field = 0, value = 0, sign = 1, digits = 0
                        func close() {
                            if field < 3, digits > 0 { fields[field] = sign * value }
                        }
                        while j < end, !isBlank(buffer[j]) {
                            let c = buffer[j]
                            if c == UInt8(ascii: "/") {
                                close()
                                field += 1; value = 0; sign = 1; digits = 0
                            } else if c == UInt8(ascii: "-"), digits == 0 {
                                sign = -1
                            } else if c >= 0x30, c <= 0x39 {
                                // Saturated: an index this large names nothing, and says so below.
                                value = min(value * 10 + Int(c - 0x30), 1 << 40); digits += 1
                            } else {
                                malformed = "line \(lineNumber): a face corner that is not v/vt/vn"
                            }
                            j += 1
                        }
                        close()
                        /// The 0-based index of a written one (negative counts back from the
                        /// last so far), nil for a corner that names none (0, or before the first).
                        func resolve(_ written: Int, _ count: Int) -> Int? {
                            let index = written > 0 ? written - 1 : count + written
                            return written == 0 || index < 0 ? nil : index
                        }
                        guard let v = fields[0] else { malformed = "line \(lineNumber): a face corner without a vertex"; break }
                        guard let vertex = resolve(v, g.positions.count) else {
                            malformed = "line \(lineNumber): a face refers to vertex \(v), but there are \(g.positions.count) before it"
                            break
                        }
                        if vertex > furthest.vertex { (furthest.vertex, furthest.vertexLine) = (vertex, lineNumber) }
                        var texcoord = -1
                        if let vt = fields[1] {
                            guard let resolved = resolve(vt, g.texcoords.count) else {
                                malformed = "line \(lineNumber): a face refers to texture coordinate \(vt), but there are \(g.texcoords.count) before it"
                                break
                            }
                            texcoord = resolved
                            if texcoord > furthest.texcoord { (furthest.texcoord, furthest.texcoordLine) = (texcoord, lineNumber) }
                        }
                        polygon.append(SIMD2(Int32(clamping: vertex), Int32(clamping: texcoord)))
                    }
                    if polygon.count >= 3, malformed == nil {
                        if currentMaterial < 0 { currentMaterial = materialIndex("") }
                        for k in 1..<(polygon.count - 1) {
                            g.corners += [polygon[0], polygon[k], polygon[k + 1]]
                            g.triangleMaterials.append(currentMaterial)
                        }
                    }
                case (UInt8(ascii: "u"), UInt8(ascii: "s"), 6) where buffer[keyStart..<i].elementsEqual("usemtl".utf8):
                    let material = String(decoding: buffer[i..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    currentMaterial = materialIndex(material)
                case (UInt8(ascii: "m"), UInt8(ascii: "t"), 6) where buffer[keyStart..<i].elementsEqual("mtllib".utf8):
                    let rest = String(decoding: buffer[i..<end], as: UTF8.self)
                    g.libraries.append(rest.trimmingCharacters(in: .whitespacesAndNewlines))
                default:
                    break
                }
                at = end + 1
            }
        }
        if let malformed { throw ModelStatsError(message: "\(name): malformed OBJ (\(malformed))") }
        guard !g.positions.isEmpty else {
            throw ModelStatsError(message: data.isEmpty ? "\(name): empty OBJ file" : "\(name): no vertices (not an OBJ file?)")
        }
        try ModelCheck.requireIndex(furthest.vertex, written: furthest.vertex + 1, count: g.positions.count, name: name,
                                    referrer: "line \(furthest.vertexLine): a face", target: "vertex")
        if furthest.texcoord >= 0 {
            try ModelCheck.requireIndex(furthest.texcoord, written: furthest.texcoord + 1, count: g.texcoords.count, name: name,
                                        referrer: "line \(furthest.texcoordLine): a face", target: "texture coordinate")
        }
        try ModelCheck.requireFinite(g.positions, name: name, what: "coordinate") { "vertex \($0 + 1)" }
        if colorLines != g.positions.count { g.rawColors = [] }
        try ModelCheck.requireFinite(g.rawColors, name: name, what: "colour") { "vertex \($0 + 1)" }
        try ModelCheck.requireFinite(g.texcoords, name: name, what: "texture coordinate") { "vt \($0 + 1)" }
        g.lengthUnit = objLengthUnit(data)
        return g
    }

    /// The unit the comments before an OBJ file's first statement record
    /// (`# lengthUnit: metres`, as ``OBJWriter`` writes it): metres only when they say so.
    static func objLengthUnit(_ data: Data) -> LengthUnit {
        for line in String(decoding: data.prefix(4096), as: UTF8.self).split(whereSeparator: \.isNewline) {
            let text = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            guard text.hasPrefix("#") else {
                if text.allSatisfy(\.isWhitespace) { continue }
                break
            }
            if let value = LengthUnit.labelValue(in: text) { return LengthUnit(unitlessFormatComment: value) }
        }
        return .unknown
    }

    package static func obj(_ data: Data, name: String, folder: URL) throws -> MeshModel {
        let g = try objGeometry(data, name: name)
        var surface = try objSurface(g, name: name, folder: folder)
        surface.lengthUnit = g.lengthUnit
        return surface
    }

    /// The surface of the parsed faces, with the textures the libraries name.
    private static func objSurface(_ g: OBJGeometry, name: String, folder: URL) throws -> MeshModel {
        let (positions, rawColors, texcoords, corners) = (g.positions, g.rawColors, g.texcoords, g.corners)
        let (libraries, materialNames, triangleMaterials) = (g.libraries, g.materialNames, g.triangleMaterials)

        var colors: [SIMD3<UInt8>]?
        if !rawColors.isEmpty {
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
            guard let text = RegularFile.contentsIfReadable(folder.appendingPathComponent(library))
                .map({ String(decoding: $0, as: UTF8.self) }) else { continue }
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
            guard let text = RegularFile.contentsIfReadable(folder.appendingPathComponent(library))
                .map({ String(decoding: $0, as: UTF8.self) }) else { continue }
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
        guard !image.contains(".."), let bytes = RegularFile.contentsIfReadable(folder.appendingPathComponent(image)) else {
            throw ModelStatsError(message: "\(name): the texture \(image) that \(library) names is missing")
        }
        return texture(bytes, fileName: (image as NSString).lastPathComponent)
    }
}
