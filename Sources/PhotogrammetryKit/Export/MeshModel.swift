import Foundation

/// A mesh as the exporters write it: vertices (positions, normals, colours, optional texture
/// coordinates), triangles, and one material.
///
/// Vertex colours carry the appearance until texturing lands; then ``uvs`` and the material's
/// ``MeshMaterial/texture`` carry it, and every exporter writes them when present (USDZ
/// `primvars:st` + a UsdUVTexture, glTF `TEXCOORD_0` + `baseColorTexture`, OBJ `vt` + `map_Kd`).
public struct MeshModel: Sendable, Equatable {
    /// Vertex positions, metres when the capture had metric scale (else the capture's units).
    public var positions: [SIMD3<Float>]
    /// Unit vertex normals, one per position.
    public var normals: [SIMD3<Float>]
    /// RGB vertex colours (sRGB), one per position.
    public var colors: [SIMD3<UInt8>]
    /// Texture coordinates (u right, v up, OpenGL convention), one per position, or nil.
    public var uvs: [SIMD2<Float>]?
    /// Counter-clockwise (outward-facing) triangles as vertex indices.
    public var triangles: [SIMD3<Int32>]
    /// The surface's look.
    public var material: MeshMaterial

    public init(positions: [SIMD3<Float>], normals: [SIMD3<Float>], colors: [SIMD3<UInt8>],
                uvs: [SIMD2<Float>]? = nil, triangles: [SIMD3<Int32>], material: MeshMaterial = MeshMaterial()) {
        self.positions = positions
        self.normals = normals
        self.colors = colors
        self.uvs = uvs
        self.triangles = triangles
        self.material = material
    }

    /// The box around the vertices, nil for an empty mesh.
    public var bounds: BoundingBox? { BoundingBox(around: positions) }

    /// Throws ``ModelExportError`` when arrays disagree in length or a triangle refers to a
    /// missing vertex (an exporter must never write a file a viewer cannot load).
    public func validate() throws {
        let n = positions.count
        guard normals.count == n, colors.count == n, uvs.map({ $0.count == n }) ?? true else {
            throw ModelExportError(message: "mesh: normals, colours and texture coordinates need one entry per vertex")
        }
        guard !triangles.isEmpty else { throw ModelExportError(message: "mesh has no triangles") }
        for triangle in triangles where triangle.min() < 0 || Int(triangle.max()) >= n {
            throw ModelExportError(message: "mesh: a triangle refers to a missing vertex")
        }
        guard material.texture == nil || uvs != nil else {
            throw ModelExportError(message: "mesh: a textured material needs texture coordinates")
        }
    }
}

/// An exporter's failure, naming the file or what is wrong.
public struct ModelExportError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
