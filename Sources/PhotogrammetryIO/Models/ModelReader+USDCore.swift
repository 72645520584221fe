import Foundation
import PhotogrammetryCore

/// Any USD file read by usd-core (``USDStage``) as one ``MeshModel`` in metres, Y up: every mesh
/// through its local-to-world transform, then the stage's up axis rotated to Y
/// (``USDStage/upRotation``) and `metersPerUnit` applied (unless the layer says its unit is
/// unknown: ``LengthUnit``); polygons as fans; normals, texture coordinates and
/// `displayColor` of any interpolation laid out per vertex (a point is split into as many
/// vertices as the distinct values its corners carry); a face's texture that of its material
/// (its GeomSubset's, else its mesh's), one material a texture; a mesh without `displayColor`
/// takes its untextured material's diffuse colour. A room of many prims (RoomPlan's walls,
/// floor and objects) becomes one mesh.
extension ModelReader {
    static func model(_ stage: USDStage) throws -> MeshModel {
        let name = stage.name
        // Metres as the layer says, points as stored (but for transforms and the up axis) when
        // its unit is unknown, as the text reader does.
        let metersPerUnit = try stage.metersPerUnit()
        let metres = stage.lengthUnit == .metres ? metersPerUnit : 1
        var positions: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = [], colors: [SIMD3<UInt8>] = []
        var uvs: [SIMD2<Float>] = [], triangles: [SIMD3<Int32>] = []
        var textureOfTriangle: [String?] = []
        for k in stage.header.meshes.indices {
            let mesh = try stage.mesh(k)
            let source = stage.header.meshes[k]
            let n = mesh.points.count, corners = mesh.indices.count
            let normal = try attribute(stage, source.normals, width: 3, points: n, faces: mesh.faces, corners: corners,
                                       what: "normal", mesh: k)
            let uv = try attribute(stage, source.uv, width: 2, points: n, faces: mesh.faces, corners: corners,
                                   what: "texture coordinate", mesh: k)
            let color = try attribute(stage, source.color, width: 3, points: n, faces: mesh.faces, corners: corners,
                                      what: "colour", mesh: k)
            let materialOfFace = try materials(of: source, in: stage, faces: mesh.faces, mesh: k)
            let meshMaterial = source.material >= 0 ? stage.header.materials[source.material] : nil
            let fallbackColor = meshMaterial.flatMap { $0.texture == nil ? $0.color : nil }
                .flatMap { $0.count == 3 && $0.allSatisfy(\.isFinite) ? SIMD3(sRGBByte(linear: $0[0]), sRGBByte(linear: $0[1]), sRGBByte(linear: $0[2])) : nil }
                ?? grey
            let normalMatrix = mesh.transform.normalMatrix

            // A vertex a point, in the file's order, when every primvar is per point or
            // constant; else one per distinct (point, normal, uv, colour) its corners carry.
            let perCorner = [normal, uv, color].contains { $0?.element == .face || $0?.element == .corner }
            var vertexOfKey: [VertexKey: Int32] = [:]
            var cornerVertex = [Int32](repeating: 0, count: corners)
            let base = positions.count
            guard base + (perCorner ? corners : n) < Int(Int32.max) else { throw ModelStatsError(message: "\(name): more than 2³¹ vertices") }
            func addVertex(point p: Int, corner c: Int, face: Int) throws {
                let world = mesh.transform.apply(mesh.points[p]) * metres
                let position = SIMD3<Float>(world)
                guard position.x.isFinite, position.y.isFinite, position.z.isFinite else {
                    throw ModelStatsError(message: "\(name): Mesh \(k): point \(p) is not finite once transformed and in metres")
                }
                positions.append(position)
                if let value = normal?.value(corner: c, face: face, point: p) {
                    let turned = normalize(normalMatrix * SIMD3<Double>(value))
                    normals.append(turned.x.isFinite ? SIMD3<Float>(turned) : .zero)
                } else {
                    normals.append(.zero)
                }
                if let value = uv?.value(corner: c, face: face, point: p) { uvs.append(SIMD2(value.x, value.y)) } else { uvs.append(.zero) }
                if let value = color?.value(corner: c, face: face, point: p) {
                    colors.append(SIMD3(sRGBByte(linear: Double(value.x)), sRGBByte(linear: Double(value.y)), sRGBByte(linear: Double(value.z))))
                } else {
                    colors.append(fallbackColor)
                }
            }
            if perCorner {
                var face = 0, inFace = 0
                for c in 0..<corners {
                    while inFace >= Int(mesh.counts[face]) { face += 1; inFace = 0 }
                    inFace += 1
                    let p = Int(mesh.indices[c])
                    let key = VertexKey(point: Int32(p), normal: normal?.bits(corner: c, face: face, point: p) ?? .init(),
                                        uv: uv?.bits(corner: c, face: face, point: p) ?? .init(),
                                        color: color?.bits(corner: c, face: face, point: p) ?? .init())
                    if let vertex = vertexOfKey[key] {
                        cornerVertex[c] = vertex
                    } else {
                        let vertex = Int32(positions.count)
                        vertexOfKey[key] = vertex
                        cornerVertex[c] = vertex
                        try addVertex(point: p, corner: c, face: face)
                    }
                }
            } else {
                for p in 0..<n { try addVertex(point: p, corner: 0, face: 0) }
                for c in 0..<corners { cornerVertex[c] = Int32(base) + mesh.indices[c] }
            }
            var at = 0
            for (f, count) in mesh.counts.enumerated() {
                let count = Int(count)
                if count >= 3 {
                    let material = materialOfFace[f]
                    let texture = uv == nil || material < 0 ? nil : stage.header.materials[material].texture
                    for j in 1..<(count - 1) {
                        let a = cornerVertex[at], b = cornerVertex[at + j], c = cornerVertex[at + j + 1]
                        triangles.append(mesh.flipsWinding ? SIMD3(a, c, b) : SIMD3(a, b, c))
                        textureOfTriangle.append(texture)
                    }
                }
                at += count
            }
        }
        // One material a texture, in the order of the stage's materials; an untextured one after
        // them when some faces have none.
        let used = Set(textureOfTriangle.compactMap { $0 })
        var pages: [String] = []
        for case let texture? in stage.header.materials.map(\.texture) where used.contains(texture) && !pages.contains(texture) {
            pages.append(texture)
        }
        var result: MeshModel
        if pages.isEmpty {
            result = try model(positions: positions, normals: normals, colors: colors, uvs: nil, triangles: triangles,
                               texture: nil, name: name)
        } else {
            var fileNames = Set<String>()
            var textures: [MeshMaterial.Texture?] = pages.enumerated().map { i, page in
                // The image's own name, unless two share it.
                let source = stage.header.materials.first { $0.texture == page }?.source ?? page
                let fileName = fileNames.insert(source).inserted ? source : page
                return texture(stage.textures[page]!, fileName: fileName)
            }
            if textureOfTriangle.contains(where: { $0 == nil }) { textures.append(nil) }
            let materialOfTriangle = textureOfTriangle.map { texture in Int32(texture.flatMap { pages.firstIndex(of: $0) } ?? pages.count) }
            result = try model(positions: positions, normals: normals, colors: colors, uvs: uvs, triangles: triangles,
                               textures: textures, materialOfTriangle: textures.count > 1 ? materialOfTriangle : nil, name: name)
        }
        result.lengthUnit = stage.lengthUnit
        return result
    }

    /// Each face's material: its `materialBind` GeomSubset's, else its mesh's (-1: none).
    private static func materials(of mesh: USDStage.Mesh, in stage: USDStage, faces: Int, mesh k: Int) throws -> [Int] {
        var materialOfFace = [Int](repeating: mesh.material, count: faces)
        for (s, subset) in mesh.subsets.enumerated() {
            for (i, face) in stage.ints(subset.faces).enumerated() {
                try ModelCheck.requireIndex(Int(face), count: faces, name: stage.name, referrer: "Mesh \(k): GeomSubset \(s): indices[\(i)]",
                                            target: "face")
                materialOfFace[Int(face)] = subset.material
            }
        }
        return materialOfFace
    }

    /// A primvar's values with how they map to corners; nil when absent or when its count does
    /// not match its interpolation (a primvar the mesh cannot use).
    private static func attribute(_ stage: USDStage, _ primvar: USDStage.Primvar?, width: Int, points: Int, faces: Int,
                                  corners: Int, what: String, mesh k: Int) throws -> CornerValues? {
        guard let primvar else { return nil }
        let values = stage.floats(primvar.array)
        let per: CornerValues.Element
        let count: Int
        switch primvar.interpolation {
        case "constant": (per, count) = (.constant, 1)
        case "uniform": (per, count) = (.face, faces)
        case "vertex", "varying": (per, count) = (.point, points)
        case "faceVarying": (per, count) = (.corner, corners)
        default: return nil
        }
        guard values.count == count * width else { return nil }
        try ModelCheck.requireFinite(values, components: width, name: stage.name, what: what) { "Mesh \(k): \(what) \($0)" }
        return CornerValues(values: values, width: width, element: per)
    }
}

/// A primvar's values and which element each belongs to.
private struct CornerValues {
    enum Element { case constant, face, point, corner }
    let values: [Float]
    let width: Int
    let element: Element

    func index(corner: Int, face: Int, point: Int) -> Int {
        switch element {
        case .constant: 0
        case .face: face
        case .point: point
        case .corner: corner
        }
    }

    /// The value at a corner, its unused components zero.
    func value(corner: Int, face: Int, point: Int) -> SIMD3<Float> {
        let i = index(corner: corner, face: face, point: point) * width
        var value = SIMD3<Float>()
        for k in 0..<width { value[k] = values[i + k] }
        return value
    }

    /// The value's bits, to tell corners apart.
    func bits(corner: Int, face: Int, point: Int) -> SIMD3<UInt32> {
        let value = self.value(corner: corner, face: face, point: point)
        return SIMD3(value.x.bitPattern, value.y.bitPattern, value.z.bitPattern)
    }
}

/// What makes a vertex: the point and the values its corner carries.
private struct VertexKey: Hashable {
    var point: Int32
    var normal: SIMD3<UInt32>
    var uv: SIMD3<UInt32>
    var color: SIMD3<UInt32>
}
