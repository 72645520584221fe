import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension MeshModel {
    /// The model textured by `atlas` (made for this model's triangles, in order): vertices split
    /// where a vertex has different UVs in different faces (a chart border), UVs in the
    /// exporters' convention (v up), and one material per atlas page (`texture_<page>`; the
    /// material keeps its name for a single page, else gains `_<page>`); in this model's unit.
    ///
    /// - Parameter jpegQuality: 1...100 encodes the pages as JPEG, 0 as PNG.
    /// - Throws: ``ModelExportError`` when the atlas is for another mesh.
    public func textured(by atlas: TextureAtlas, jpegQuality: Int = 95) throws -> MeshModel {
        let cornerUVs = atlas.uvs
        guard cornerUVs.count == 3 * triangles.count else {
            throw ModelExportError(message: "texture atlas of \(cornerUVs.count / 3) faces for a mesh of \(triangles.count)")
        }
        let pageCount = atlas.pageCount
        let facePages = pageCount > 1 ? atlas.facePages : []
        var split = MeshModel(positions: [], normals: [], colors: [], uvs: [], triangles: [], material: material,
                              lengthUnit: lengthUnit)
        var index: [CornerKey: Int32] = [:]
        split.triangles.reserveCapacity(triangles.count)
        for (f, triangle) in triangles.enumerated() {
            var corners = SIMD3<Int32>()
            for k in 0..<3 {
                let vertex = Int(triangle[k])
                let uv = SIMD2(cornerUVs[3 * f + k].x, 1 - cornerUVs[3 * f + k].y)
                // Pages share UV space: a corner is one vertex per page too.
                let key = CornerKey(vertex: vertex, page: pageCount > 1 ? facePages[f] : 0,
                                    u: uv.x.bitPattern, v: uv.y.bitPattern)
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
        split.materials = try (0..<pageCount).map { page in
            var pageMaterial = material
            if pageCount > 1 { pageMaterial.name += "_\(page)" }
            pageMaterial.texture = MeshMaterial.Texture(data: try atlas.encodedPage(page, jpegQuality: jpegQuality),
                                                        fileName: "texture_\(page).\(extensionName)",
                                                        width: atlas.pageSize, height: atlas.pageSize)
            return pageMaterial
        }
        if pageCount > 1 { split.materialOfTriangle = facePages.map { Int32($0) } }
        return split
    }
}

/// A vertex with one UV: the unit the split mesh has one vertex per.
private struct CornerKey: Hashable {
    package var vertex: Int
    package var page: Int
    package var u: UInt32
    package var v: UInt32
}
