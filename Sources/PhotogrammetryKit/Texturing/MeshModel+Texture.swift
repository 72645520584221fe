import Foundation

extension MeshModel {
    /// The model textured by `atlas` (made for this model's triangles, in order): vertices split
    /// where a vertex has different UVs in different faces (a chart border), UVs in the
    /// exporters' convention (v up), and the atlas's first page as the material's texture.
    ///
    /// - Parameter jpegQuality: 1...100 encodes the page as JPEG, 0 as PNG.
    /// - Throws: ``ModelExportError`` when the atlas is for another mesh or has several pages
    ///   (one material holds one texture).
    public func textured(by atlas: TextureAtlas, jpegQuality: Int = 95) throws -> MeshModel {
        let cornerUVs = atlas.uvs
        guard cornerUVs.count == 3 * triangles.count else {
            throw ModelExportError(message: "texture atlas of \(cornerUVs.count / 3) faces for a mesh of \(triangles.count)")
        }
        guard atlas.pageCount == 1 else {
            throw ModelExportError(message: "texture atlas of \(atlas.pageCount) pages: one material holds one")
        }
        var split = MeshModel(positions: [], normals: [], colors: [], uvs: [], triangles: [], material: material)
        var index: [CornerKey: Int32] = [:]
        split.triangles.reserveCapacity(triangles.count)
        for (f, triangle) in triangles.enumerated() {
            var corners = SIMD3<Int32>()
            for k in 0..<3 {
                let vertex = Int(triangle[k])
                let uv = SIMD2(cornerUVs[3 * f + k].x, 1 - cornerUVs[3 * f + k].y)
                let key = CornerKey(vertex: vertex, u: uv.x.bitPattern, v: uv.y.bitPattern)
                if let existing = index[key] {
                    corners[k] = existing
                } else {
                    let new = Int32(split.positions.count)
                    split.positions.append(positions[vertex])
                    split.normals.append(normals[vertex])
                    split.colors.append(colors[vertex])
                    split.uvs!.append(uv)
                    index[key] = new
                    corners[k] = new
                }
            }
            split.triangles.append(corners)
        }
        let extensionName = jpegQuality > 0 ? "jpg" : "png"
        split.material.texture = MeshMaterial.Texture(data: try atlas.encodedPage(0, jpegQuality: jpegQuality),
                                                      fileName: "texture_0.\(extensionName)",
                                                      width: atlas.pageSize, height: atlas.pageSize)
        return split
    }
}

/// A vertex with one UV: the unit the split mesh has one vertex per.
private struct CornerKey: Hashable {
    var vertex: Int
    var u: UInt32
    var v: UInt32
}
