import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// cameras.ply (a pyramid per camera) and sparse_pc.ply (the points for nerfstudio): their
/// geometry against the model's poses, and trimesh reading them.
final class CameraFrustaTests: XCTestCase {
    private func scene() -> Reconstruction {
        var options = SyntheticScene.Options()
        options.numImages = 7
        options.numPoints = 120
        options.width = 1000
        options.height = 600
        options.seed = 5
        return SyntheticScene(options).reconstruction
    }

    /// The vertices of a binary PLY of `float x y z, uchar red green blue` vertices.
    private func vertices(_ data: Data) throws -> [SIMD3<Float>] {
        let end = try XCTUnwrap(data.range(of: Data("end_header\n".utf8))).upperBound
        let header = String(decoding: data[..<end], as: UTF8.self)
        let line = try XCTUnwrap(header.split(separator: "\n").first { $0.hasPrefix("element vertex ") })
        let count = try XCTUnwrap(Int(line.split(separator: " ")[2]))
        let bytes = [UInt8](data[end...])
        return (0..<count).map { k in
            let at = 15 * k
            let floats = (0..<3).map { c -> Float in
                Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + 4 * c + $1]) << (8 * $1) })
            }
            return SIMD3(floats[0], floats[1], floats[2])
        }
    }

    /// Each pyramid's apex is the camera's centre, its rectangle lies at the depth in front of
    /// it with the image's aspect ratio and field of view, and the marker points to image up.
    func testPyramidsStandWhereTheCamerasAre() throws {
        let model = scene()
        let depth = CameraFrustaPLY.depth(for: model)
        // The ring's cameras look at points about 6 units away.
        XCTAssertEqual(depth, 0.1 * 6, accuracy: 0.15)
        let points = try vertices(CameraFrustaPLY.data(model))
        let images = model.images.values.sorted { $0.name < $1.name }
        XCTAssertEqual(points.count, CameraFrustaPLY.verticesPerCamera * images.count)
        for (k, image) in images.enumerated() {
            let pose = try XCTUnwrap(image.camFromWorld), camera = try XCTUnwrap(model.cameras[image.cameraID])
            let mine = points[(6 * k)..<(6 * k + 6)].map { pose.apply(SIMD3<Double>($0)) }  // in the camera's frame
            XCTAssertLessThan(length(mine[0]), 1e-5, "apex at the centre")
            for corner in mine[1...4] { XCTAssertEqual(corner.z, depth, accuracy: 1e-5) }
            let width = mine[2].x - mine[1].x, height = mine[4].y - mine[1].y
            XCTAssertEqual(width / height, Double(camera.width) / Double(camera.height), accuracy: 1e-4)
            XCTAssertEqual(width / depth, Double(camera.width) / camera.focalLengths.x, accuracy: 1e-4, "the image's field of view")
            XCTAssertLessThan(mine[5].y, mine[1].y, "the marker is above the image's top edge (y down)")
        }
    }

    /// trimesh reads one connected pyramid per camera, and the sparse points with their colours.
    func testTrimeshReadsTheFiles() throws {
        let model = scene()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("frusta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let frusta = folder.appendingPathComponent("cameras.ply"), cloud = folder.appendingPathComponent("sparse_pc.ply")
        try CameraFrustaPLY.data(model).write(to: frusta)
        try SparsePointsPLY.data(model).write(to: cloud)
        let output = try XCTUnwrap(PythonCheck.run("""
            import sys, numpy, trimesh
            m = trimesh.load(\(BadInputs.python(frusta.path)), process=False)
            # Connected parts by union-find over the faces: trimesh's graph functions need scipy or
            # networkx, which scripts/setup does not install.
            root = list(range(len(m.vertices)))
            def find(v):
                while root[v] != v:
                    root[v] = root[root[v]]
                    v = root[v]
                return v
            for a, b, c in m.faces:
                root[find(int(b))] = find(int(a))
                root[find(int(c))] = find(int(a))
            parts = len({find(v) for v in range(len(m.vertices))})
            c = trimesh.load(\(BadInputs.python(cloud.path)))
            colours = c.colors if len(c.colors) else c.visual.vertex_colors
            print(len(m.vertices), len(m.faces), parts, type(c).__name__, len(c.vertices), int(numpy.asarray(colours)[:, :3].sum() > 0))
            """, modules: ["trimesh", "numpy"]))
        let words = output.split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(words, ["\(6 * 7)", "\(7 * 7)", "7", "PointCloud", "\(model.points3D.count)", "1"], output)
        // The cloud's points are the model's, in its frame, in the order of their ids.
        let xyz = try vertices(SparsePointsPLY.data(model))
        for (point, (_, original)) in zip(xyz, model.points3D.sorted { $0.key < $1.key }) {
            XCTAssertLessThan(length(SIMD3<Double>(point) - original.position), 1e-5)
        }
    }
}
