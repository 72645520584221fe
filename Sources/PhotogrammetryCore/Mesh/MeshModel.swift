import Foundation

/// A mesh as the exporters write it: vertices (positions, normals, colours, optional texture
/// coordinates), triangles, and their materials (one, or one per texture page).
///
/// Vertex colours carry the appearance of an untextured mesh; a textured one has ``uvs`` and
/// each material's ``MeshMaterial/texture``, and every exporter writes them (USDZ `primvars:st`
/// + a UsdUVTexture per material, bound per GeomSubset; glTF `TEXCOORD_0` + `baseColorTexture`,
/// a primitive per material; OBJ `vt` + `map_Kd`, `usemtl` per material; PLY per-face
/// `texcoord` and `texnumber` with a `TextureFile` comment per page).
public struct MeshModel: Sendable, Equatable {
    /// Vertex positions, in ``lengthUnit``s.
    public var positions: [SIMD3<Float>]
    /// Unit vertex normals, one per position.
    public var normals: [SIMD3<Float>]
    /// RGB vertex colours (sRGB), one per position.
    public var colors: [SIMD3<UInt8>]
    /// Texture coordinates (u right, v up, OpenGL convention), one per position, or nil.
    public var uvs: [SIMD2<Float>]?
    /// Counter-clockwise (outward-facing) triangles as vertex indices.
    public var triangles: [SIMD3<Int32>]
    /// The surface's looks: one, or one per texture page of a multi-page atlas.
    public var materials: [MeshMaterial]
    /// Each triangle's index into ``materials``, or nil when all use the first.
    public var materialOfTriangle: [Int32]?
    /// What one unit of ``positions`` is: metres only when a metric source made it so.
    public var lengthUnit: LengthUnit

    /// The first (for most models the only) material.
    public var material: MeshMaterial {
        get { materials[0] }
        set { materials[0] = newValue }
    }

    public init(positions: [SIMD3<Float>], normals: [SIMD3<Float>], colors: [SIMD3<UInt8>],
                uvs: [SIMD2<Float>]? = nil, triangles: [SIMD3<Int32>], material: MeshMaterial = MeshMaterial(),
                lengthUnit: LengthUnit = .unknown) {
        self.positions = positions
        self.normals = normals
        self.colors = colors
        self.uvs = uvs
        self.triangles = triangles
        self.materials = [material]
        self.lengthUnit = lengthUnit
    }

    /// The triangles of each material, in order (empty for a material no triangle uses).
    public var trianglesByMaterial: [[Int]] {
        var groups = [[Int]](repeating: [], count: materials.count)
        guard let materialOfTriangle, materials.count > 1 else {
            groups[0] = Array(triangles.indices)
            return groups
        }
        for (t, m) in materialOfTriangle.enumerated() { groups[Int(m)].append(t) }
        return groups
    }

    /// Every material's texture, in order (a multi-page atlas's pages).
    public var textures: [MeshMaterial.Texture] { materials.compactMap(\.texture) }

    /// The box around the vertices, nil for an empty mesh.
    public var bounds: BoundingBox? { BoundingBox(around: positions) }
}

/// An exporter's failure, naming the file or what is wrong.
public struct ModelExportError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
