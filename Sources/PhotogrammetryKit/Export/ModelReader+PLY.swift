import Foundation

/// PLY (ascii or binary), read by the core's reader: vertices, normals, colours and faces
/// (polygons as fans). Texture coordinates are not read (our PLY files carry none).
extension ModelReader {
    static func ply(_ url: URL) throws -> MeshModel {
        let mesh: PointCloud
        do { mesh = try PointCloud.load(url) } catch {
            throw ModelStatsError(message: "\(url.path): not a readable PLY file (\(error))")
        }
        guard mesh.triangleCount > 0 else {
            throw ModelStatsError(message: "\(url.path): no faces (a point cloud, not a mesh)")
        }
        return try model(positions: mesh.points, normals: mesh.normals, colors: mesh.colors, uvs: nil, triangles: mesh.triangles,
                         texture: nil, name: url.path)
    }
}
