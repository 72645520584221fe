import Foundation
import PhotogrammetryCore

/// The fallback reader where usd-core cannot run (``USDCore``): USD text layers, alone (`.usda`)
/// or as a USDZ package's root layer, points as stored but for `metersPerUnit` (no prim
/// transforms or up axis): every Mesh's `points`, `faceVertexCounts` and `faceVertexIndices`
/// (polygons as fans), `primvars:displayColor` (linear, per vertex or constant), `primvars:st` (per vertex or face-varying; v up, as ours) and
/// the texture a UsdUVTexture's `inputs:file` names inside the package (else its first image);
/// a single Mesh whose `materialBind` GeomSubsets bind textured materials gets one material per
/// subset (a multi-page atlas). The unit: ``LengthUnit/unknown`` when `customLayerData` says
/// `lengthUnit = "unknown"`, else metres, the points multiplied by the layer's `metersPerUnit`
/// (``ModelStats/usdUnit(_:name:)``).
extension ModelReader {
    package static func usdz(_ data: Data, name: String) throws -> MeshModel {
        let entries = try StoredZip.entries(of: data, name: name)
        guard let root = entries.first else { throw ModelStatsError(message: "\(name): empty USDZ package") }
        return try usda(root.data, name: "\(name): \(root.name)",
                        package: entries.dropFirst().map { ($0.name, $0.data) }, file: name)
    }

    /// A text layer's bytes, refusing a binary (usdc) layer or anything without the `#usda`
    /// header (``ModelStats`` reads the same).
    static func usdaBytes(_ data: Data, name: String) throws -> [UInt8] {
        if data.starts(with: Array("PXR-USDC".utf8)) {
            throw ModelStatsError(message: "\(name): binary USD layer (usdc) is not supported by the text reader; install usd-core (pip install \(USDCore.requirement))")
        }
        guard data.starts(with: Array("#usda".utf8)) else {
            throw ModelStatsError(message: "\(name): not a USD text layer (no #usda header)")
        }
        return [UInt8](data)
    }

    /// One Mesh prim of a text layer, checked: its points are finite triples, its face vertex
    /// counts add up to its indices, and every index names one of its points.
    struct USDMesh {
        /// x y z per point, as the 32-bit floats a `point3f` is.
        package var points: [Float]
        package var counts: [Int]
        package var indices: [Int32]
        package var pointCount: Int { points.count / 3 }
    }

    /// Every Mesh of a text layer (``ModelStats`` reads the same), in file order.
    /// - Throws: naming the file and the Mesh (numbered from 0 in file order) when its lists do
    ///   not pair up or break a rule of ``USDMesh``.
    static func usdMeshes(_ bytes: [UInt8], name: String) throws -> [USDMesh] {
        let pointLists = usdLists("points", ["point3f[]"], in: bytes)
        let countLists = usdLists("faceVertexCounts", ["int[]"], in: bytes)
        let indexLists = usdLists("faceVertexIndices", ["int[]"], in: bytes)
        guard !pointLists.isEmpty, pointLists.count == countLists.count, pointLists.count == indexLists.count else {
            throw ModelStatsError(message: "\(name): no Mesh with points, faceVertexCounts and faceVertexIndices")
        }
        return try pointLists.indices.map { m in
            let points = pointLists[m].map { Float($0) }
            let counts = countLists[m].map(safeInt), indices = indexLists[m].map { Int32(clamping: safeInt($0)) }
            guard points.count % 3 == 0 else { throw ModelStatsError(message: "\(name): Mesh \(m): points are not triples") }
            try ModelCheck.requireFinite(points, components: 3, name: name, what: "coordinate") { "Mesh \(m): point \($0)" }
            let n = points.count / 3
            guard counts.allSatisfy({ $0 >= 0 && $0 < 1 << 20 }), counts.reduce(0, +) == indices.count else {
                throw ModelStatsError(message: "\(name): Mesh \(m): faceVertexCounts do not add up to faceVertexIndices")
            }
            for (k, index) in indices.enumerated() {
                try ModelCheck.requireIndex(Int(index), count: n, name: name, referrer: "Mesh \(m): faceVertexIndices[\(k)]",
                                            target: "point")
            }
            return USDMesh(points: points, counts: counts, indices: indices)
        }
    }

    /// The numbers of every `TYPE NAME = [...]` list of the attribute, in file order.
    static func usdLists(_ attribute: String, _ types: [String], in bytes: [UInt8]) -> [[Double]] {
        types.flatMap { ModelStats.arrays(named: attribute, ofType: $0, in: bytes) }
            .sorted { $0.lowerBound < $1.lowerBound }
            .map { ModelStats.numbers(in: bytes[$0]) }
    }

    /// `package` holds the other files of a USDZ (name, bytes); `file` names the package.
    package static func usda(_ data: Data, name: String, package: [(String, Data)], file: String? = nil) throws -> MeshModel {
        let bytes = try usdaBytes(data, name: name)
        let meshes = try usdMeshes(bytes, name: name)
        let unit = try ModelStats.usdUnit(bytes, name: name)
        /// The model in the layer's unit: metres with `metersPerUnit` applied, or as stored.
        func inUnit(_ model: MeshModel) -> MeshModel {
            var model = model
            model.lengthUnit = unit.lengthUnit
            if let metres = unit.metersPerUnit, metres != 1 {
                model.positions = model.positions.map { $0 * Float(metres) }
            }
            return model
        }
        let colorLists = usdLists("primvars:displayColor", ["color3f[]"], in: bytes)
        let stLists = usdLists("primvars:st", ["texCoord2f[]", "float2[]"], in: bytes)
        for (m, colors) in colorLists.enumerated() {
            try ModelCheck.requireFinite(colors, components: 3, name: name, what: "colour") { "displayColor list \(m): colour \($0)" }
        }
        for (m, st) in stLists.enumerated() {
            try ModelCheck.requireFinite(st.map { Float($0) }, components: 2, name: name, what: "texture coordinate") { "st list \(m): coordinate \($0)" }
        }
        var positions: [SIMD3<Float>] = [], colors: [SIMD3<UInt8>] = [], uvs: [SIMD2<Float>] = []
        var triangles: [SIMD3<Int32>] = []
        var firstTriangleOfFace: [Int] = []  // of the first mesh, and one past its last
        var textured = stLists.count == meshes.count
        for (m, mesh) in meshes.enumerated() {
            let points = mesh.points, counts = mesh.counts, indices = mesh.indices
            let n = mesh.pointCount
            var meshColors = [SIMD3<UInt8>](repeating: grey, count: n)
            if m < colorLists.count {
                let c = colorLists[m].map { sRGBByte(linear: $0) }
                if c.count == 3 * n {
                    for i in 0..<n { meshColors[i] = SIMD3(c[3 * i], c[3 * i + 1], c[3 * i + 2]) }
                } else if c.count == 3 {
                    meshColors = [SIMD3<UInt8>](repeating: SIMD3(c[0], c[1], c[2]), count: n)
                }
            }
            let st = textured ? stLists[m] : []
            let faceVarying = textured && st.count == 2 * indices.count && st.count != 2 * n
            if textured, !faceVarying, st.count != 2 * n { textured = false }
            // Face-varying texture coordinates: one vertex per face corner.
            var corner = [Int32](repeating: 0, count: indices.count)
            let base = Int32(positions.count)
            if faceVarying {
                for (k, i) in indices.enumerated() {
                    corner[k] = base + Int32(k)
                    positions.append(SIMD3(points[3 * Int(i)], points[3 * Int(i) + 1], points[3 * Int(i) + 2]))
                    colors.append(meshColors[Int(i)])
                    uvs.append(SIMD2(Float(st[2 * k]), Float(st[2 * k + 1])))
                }
            } else {
                for i in 0..<n {
                    positions.append(SIMD3(points[3 * i], points[3 * i + 1], points[3 * i + 2]))
                    uvs.append(st.isEmpty ? .zero : SIMD2(Float(st[2 * i]), Float(st[2 * i + 1])))
                }
                colors += meshColors
                for (k, i) in indices.enumerated() { corner[k] = base + i }
            }
            var at = 0
            for count in counts {
                if m == 0 { firstTriangleOfFace.append(triangles.count) }
                if count >= 3 {
                    for k in 1..<(count - 1) { triangles.append(SIMD3(corner[at], corner[at + k], corner[at + k + 1])) }
                }
                at += max(0, count)
            }
            if m == 0 { firstTriangleOfFace.append(triangles.count) }
        }
        let images = package.filter { ["png", "jpg", "jpeg"].contains(($0.0 as NSString).pathExtension.lowercased()) }
        if textured, meshes.count == 1,
           let (textures, materialOfFace) = subsetTextures(bytes, images: images, faces: firstTriangleOfFace.count - 1) {
            var materialOfTriangle = [Int32](repeating: 0, count: triangles.count)
            for (face, material) in materialOfFace.enumerated() {
                for t in firstTriangleOfFace[face]..<firstTriangleOfFace[face + 1] { materialOfTriangle[t] = material }
            }
            return inUnit(try model(positions: positions, colors: colors, uvs: uvs, triangles: triangles, textures: textures,
                                    materialOfTriangle: materialOfTriangle, name: file ?? name))
        }
        var texture: MeshMaterial.Texture?
        if textured {
            let named = assetFile(in: bytes)
            if let image = images.first(where: { $0.0 == named }) ?? images.first {
                texture = ModelReader.texture(image.1, fileName: (image.0 as NSString).lastPathComponent)
            }
        }
        return inUnit(try model(positions: positions, colors: colors, uvs: texture == nil ? nil : uvs, triangles: triangles,
                                texture: texture, name: file ?? name))
    }

    /// The textures of a mesh's `materialBind` GeomSubsets (one per subset, bound by its
    /// `material:binding` to a Material whose UsdUVTexture names an image of the package) and
    /// each face's subset; nil unless there are two or more and they cover every face once.
    private static func subsetTextures(_ bytes: [UInt8], images: [(String, Data)],
                                       faces: Int) -> ([MeshMaterial.Texture?], [Int32])? {
        let subsets = ModelStats.arrays(named: "indices", ofType: "int[]", in: bytes)
        guard subsets.count >= 2 else { return nil }
        // Each Material's image: the first `inputs:file` after its `def Material "NAME"`.
        var imageOfMaterial: [String: String] = [:]
        let materialNeedle = Array("def Material \"".utf8), fileNeedle = Array("asset inputs:file = @".utf8)
        var at = 0
        while let start = ModelStats.find(materialNeedle, in: bytes, from: at) {
            let nameStart = start + materialNeedle.count
            let materialName = String(decoding: bytes[nameStart...].prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
            let next = ModelStats.find(materialNeedle, in: bytes, from: nameStart) ?? bytes.count
            if let file = ModelStats.find(fileNeedle, in: bytes, from: nameStart), file < next {
                let tail = bytes[(file + fileNeedle.count)...].prefix { $0 != UInt8(ascii: "@") && $0 != 0x0A }
                imageOfMaterial[materialName] = String(decoding: tail, as: UTF8.self)
            }
            at = nameStart
        }
        var materialOfFace = [Int32](repeating: -1, count: faces)
        var textures: [MeshMaterial.Texture?] = []
        let bindingNeedle = Array("rel material:binding = <".utf8)
        for (n, range) in subsets.enumerated() {
            guard let binding = ModelStats.find(bindingNeedle, in: bytes, from: range.upperBound) else { return nil }
            let path = String(decoding: bytes[(binding + bindingNeedle.count)...].prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)
            let image = imageOfMaterial[String(path.split(separator: "/").last ?? "")]
            let data = images.first { $0.0 == image }?.1
            textures.append(data.map { texture($0, fileName: (image! as NSString).lastPathComponent) })
            for value in ModelStats.numbers(in: bytes[range]) {
                guard let face = Int(exactly: value), (0..<faces).contains(face), materialOfFace[face] < 0 else { return nil }
                materialOfFace[face] = Int32(n)
            }
        }
        guard materialOfFace.allSatisfy({ $0 >= 0 }) else { return nil }
        return (textures, materialOfFace)
    }

    /// A list entry as an integer (-1 when it is not one).
    private static func safeInt(_ value: Double) -> Int { Int(exactly: value) ?? -1 }

    /// The file a layer's first `asset inputs:file = @NAME@` names, or nil.
    private static func assetFile(in bytes: [UInt8]) -> String? {
        let needle = Array("asset inputs:file = @".utf8)
        guard let start = ModelStats.find(needle, in: bytes, from: 0) else { return nil }
        let tail = bytes[(start + needle.count)...].prefix { $0 != UInt8(ascii: "@") && $0 != 0x0A }
        return String(decoding: tail, as: UTF8.self)
    }
}
