import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetrySparse

extension ViewerScene {
    /// The viewer's scene for a run: `model` (the textured model as written, nil for a
    /// sparse-only run), the largest sparse model's registered cameras and points, the dense
    /// cloud when the run made one, and up from the report's `modelFrame`. A mesh or cloud that cannot be read is left out, never an
    /// error: the page still shows the rest.
    ///
    /// A model within ``maxTriangles`` goes in whole with its texture pages re-encoded as JPEG of
    /// at most ``textureSide`` pixels; a larger one is replaced by the surface stage's
    /// vertex-coloured mesh decimated to ``maxTriangles`` (the page says so).
    static func make(model: MeshModel?, sparse: Reconstruction, modelFrame: String?, layout: OutputLayout) -> ViewerScene {
        var cameras: [Camera] = []
        for id in sparse.registeredImageIDs {
            guard let image = sparse.images[id], let pose = image.camFromWorld, let camera = sparse.cameras[image.cameraID] else { continue }
            cameras.append(Camera(name: image.name, width: camera.width, height: camera.height, focalLengths: camera.focalLengths,
                                  principalPoint: camera.principalPoint, camFromWorld: pose))
        }
        cameras.sort { $0.name < $1.name }
        let points = sparse.points3D.keys.sorted().compactMap { sparse.points3D[$0] }
        let sparsePoints = Points.subsampled(points.map { SIMD3<Float>($0.position) }, colors: points.map(\.color),
                                             limit: maxSparsePoints)
        var dense: Points?
        if FileManager.default.fileExists(atPath: layout.denseCloud.path), let cloud = try? PointCloud.load(layout.denseCloud) {
            dense = Points.subsampled(cloud.points, colors: cloud.colors, limit: maxDensePoints)
        }
        let mesh = model.flatMap { try? viewerMesh($0, layout: layout) }
        return ViewerScene(mesh: mesh, cameras: cameras, sparsePoints: sparsePoints, densePoints: dense,
                           up: up(ofModelFrame: modelFrame))
    }

    /// `model` as the page carries it (see ``make(model:sparse:modelFrame:layout:)``).
    static func viewerMesh(_ model: MeshModel, layout: OutputLayout) throws -> Mesh? {
        guard !model.triangles.isEmpty else { return nil }
        if model.triangles.count > maxTriangles {
            let surface = FileManager.default.fileExists(atPath: layout.surfaceMesh.path)
                ? (try? ModelReader.read(layout.surfaceMesh)) ?? model : model
            let decimated = try TriangleMesh(positions: surface.positions, normals: surface.normals, colors: surface.colors,
                                             triangles: surface.triangles).simplified(below: maxTriangles).mesh.meshModel()
            return Mesh(positions: decimated.positions, uvs: nil, colors: decimated.colors, triangles: decimated.triangles,
                        groups: [(0, decimated.triangles.count, -1)], texturesJPEG: [],
                        reduction: "\(ReportFormat.count(decimated.triangles.count)) of the model's "
                            + "\(ReportFormat.count(model.triangles.count)) triangles, in the surface's vertex colours")
        }
        // One run of triangles per material, each with its texture; vertex colours when any
        // material in use has none.
        let byMaterial = model.trianglesByMaterial
        let used = byMaterial.indices.filter { !byMaterial[$0].isEmpty }
        let textured = model.uvs?.count == model.positions.count && used.allSatisfy { model.materials[$0].texture != nil }
        guard textured else {
            return Mesh(positions: model.positions, uvs: nil, colors: model.colors, triangles: model.triangles,
                        groups: [(0, model.triangles.count, -1)], texturesJPEG: [])
        }
        var triangles: [SIMD3<Int32>] = []
        var groups: [(first: Int, count: Int, texture: Int)] = []
        var textures: [Data] = []
        for m in used {
            groups.append((triangles.count, byMaterial[m].count, textures.count))
            triangles += byMaterial[m].map { model.triangles[$0] }
            textures.append(try jpeg(of: model.materials[m].texture!, in: layout.work))
        }
        return Mesh(positions: model.positions, uvs: model.uvs, colors: model.colors, triangles: triangles,
                    groups: groups, texturesJPEG: textures)
    }

    /// `texture` as JPEG with its longer side at most ``textureSide`` (decoded from a
    /// short-lived file in `folder`, the run's working folder).
    private static func jpeg(of texture: MeshMaterial.Texture, in folder: URL) throws -> Data {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ext = (texture.fileName as NSString).pathExtension.isEmpty ? "png" : (texture.fileName as NSString).pathExtension
        let file = folder.appendingPathComponent("viewer-texture-\(UUID().uuidString).\(ext)")
        try texture.data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try Thumbnail.jpeg(of: file, maxSide: textureSide, quality: 80)
    }
}
