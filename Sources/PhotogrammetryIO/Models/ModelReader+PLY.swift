import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// PLY (ascii or binary), read by the core's reader: vertices, normals, colours, faces (polygons
/// as fans), per vertex texture coordinates (`s t`, `u v`, `texture_u texture_v`) with the
/// `comment TextureFile` images beside the file, one material per image, and each face's
/// `texnumber` (MeshLab's convention) choosing among them. Per face `texcoord` lists alone
/// (without per vertex coordinates) are not read. Metres only when a header comment says
/// `comment lengthUnit metres`, else unknown.
extension ModelReader {
    /// A PLY file read by the core, which checks the header's counts against the file's size
    /// before it allocates and every face's indices against the vertices; then every value kept
    /// checked finite (``ModelStats`` reads the same).
    static func plyMesh(_ url: URL) throws -> PointCloud {
        let mesh: PointCloud
        do { mesh = try PointCloud.load(url) } catch {
            throw ModelStatsError(message: "\(url.path): not a readable PLY file (\(error))")
        }
        try requireFinite(mesh, name: url.path)
        return mesh
    }

    /// Refuses a cloud or mesh whose positions, normals or texture coordinates are not all
    /// finite, naming `name` and the first such vertex (numbered from 0, as PLY faces count).
    public static func requireFinite(_ cloud: PointCloud, name: String) throws {
        try cloud.withPoints { flat in
            try ModelCheck.requireFinite(flat, components: 3, name: name, what: "coordinate") { "vertex \($0)" }
        }
        if let normals = cloud.normals {
            try ModelCheck.requireFinite(normals, name: name, what: "normal") { "vertex \($0)" }
        }
        if let uvs = cloud.uvs {
            try ModelCheck.requireFinite(uvs, name: name, what: "texture coordinate") { "vertex \($0)" }
        }
    }

    package static func ply(_ url: URL) throws -> MeshModel {
        var surface = try plySurface(url)
        surface.lengthUnit = try plyLengthUnit(url)
        return surface
    }

    private static func plySurface(_ url: URL) throws -> MeshModel {
        let mesh = try plyMesh(url)
        guard mesh.triangleCount > 0 else {
            throw ModelStatsError(message: "\(url.path): no faces (a point cloud, not a mesh)")
        }
        let files = try textureFiles(url)
        guard let uvs = mesh.uvs, !files.isEmpty else {
            return try model(positions: mesh.points, normals: mesh.normals, colors: mesh.colors, uvs: nil,
                             triangles: mesh.triangles, texture: nil, name: url.path)
        }
        let textures = try files.map { file -> MeshMaterial.Texture in
            guard !file.contains(".."),
                  let bytes = RegularFile.contentsIfReadable(url.deletingLastPathComponent().appendingPathComponent(file)) else {
                throw ModelStatsError(message: "\(url.path): the texture \(file) it names is missing")
            }
            return texture(bytes, fileName: (file as NSString).lastPathComponent)
        }
        return try model(positions: mesh.points, normals: mesh.normals, colors: mesh.colors, uvs: uvs,
                         triangles: mesh.triangles, textures: textures,
                         materialOfTriangle: textures.count > 1 ? mesh.triangleTextures : nil, name: url.path)
    }

    /// The images a PLY header's `comment TextureFile NAME` lines name, in order.
    static func textureFiles(_ url: URL) throws -> [String] {
        try headerComments(url)
            .filter { $0.hasPrefix("TextureFile ") }
            .map { $0.dropFirst(12).trimmingCharacters(in: .whitespaces) }
    }

    /// The unit a PLY header's `comment lengthUnit VALUE` records (as ``PLYWriter`` and our
    /// `dense.ply` write it): metres only when it says so. A point cloud's too (`mesh`).
    package static func plyLengthUnit(_ url: URL) throws -> LengthUnit {
        let prefix = LengthUnit.metadataKey + " "
        let value = try headerComments(url).first { $0.hasPrefix(prefix) }?.dropFirst(prefix.count)
        return LengthUnit(unitlessFormatComment: value.map { $0.prefix { !$0.isWhitespace } })
    }

    /// The text of a PLY header's `comment` lines, in order.
    private static func headerComments(_ url: URL) throws -> [Substring] {
        let data = try contents(of: url)
        let headerEnd = data.prefix(65_536).range(of: Data("end_header".utf8))?.lowerBound ?? data.startIndex
        let header = String(decoding: data[data.startIndex..<headerEnd], as: UTF8.self)
        return header.split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("comment ") }
            .map { $0.dropFirst(8) }
    }
}
