import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// report.html's 3D view without a browser: what the page carries (quantised, decoded back
/// against the source), what a model too large for the page becomes, and the page when three.js
/// is missing. DenseStageTests.testTempleRingPreview checks the view in headless Chromium.
final class ReportViewerTests: XCTestCase {
    /// A camera at (x, 0, -4) looking along +z.
    private func camera(_ name: String, x: Double) -> ViewerScene.Camera {
        ViewerScene.Camera(name: name, width: 640, height: 480, focalLengths: SIMD2(500, 500), principalPoint: SIMD2(320, 240),
                           camFromWorld: Rigid3(rotation: .identity, translation: SIMD3(-x, 0, 4)))
    }

    private func scene(mesh: ViewerScene.Mesh?) -> ViewerScene {
        let points: [SIMD3<Float>] = [SIMD3(-1, -1, 0), SIMD3(1, 0.5, 0.25), SIMD3(0.2, 1, -0.5)]
        return ViewerScene(mesh: mesh, cameras: [camera("a.jpg", x: -1), camera("b.jpg", x: 1)],
                           sparsePoints: ViewerScene.Points(positions: points, colors: [SIMD3(255, 0, 0), SIMD3(0, 255, 0), SIMD3(0, 0, 255)]),
                           up: ViewerScene.up(ofModelFrame: "upright"))
    }

    private func decode(_ base64: Any?) throws -> [UInt8] {
        [UInt8](try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(base64 as? String))))
    }

    private func steps(_ bytes: [UInt8]) -> [Double] {
        stride(from: 0, to: bytes.count, by: 2).map { Double(UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// Positions come back within half a 16-bit step of their box; indices, colours, cameras and
    /// up as given.
    func testPageDataDecodesToTheScene() throws {
        let positions: [SIMD3<Float>] = [SIMD3(0, 0, 0), SIMD3(2, 0, 0), SIMD3(0, 1, 0), SIMD3(0.3, 0.7, -0.5)]
        let mesh = ViewerScene.Mesh(positions: positions, uvs: nil, colors: Array(repeating: SIMD3(10, 20, 30), count: 4),
                                    triangles: [SIMD3(0, 1, 2), SIMD3(0, 2, 3)], groups: [(0, 2, -1)], texturesJPEG: [])
        let json = try scene(mesh: mesh).pageJSON()
        XCTAssertFalse(json.contains("</"), "safe inside <script>")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let meshObject = try XCTUnwrap(object["mesh"] as? [String: Any])
        let box = try XCTUnwrap(meshObject["box"] as? [Double])
        XCTAssertEqual(box, [0, 0, -0.5, 2, 1, 0])
        let q = steps(try decode(meshObject["positions"]))
        XCTAssertEqual(q.count, 12)
        for (v, position) in positions.enumerated() {
            for axis in 0..<3 {
                let decoded = box[axis] + (box[axis + 3] - box[axis]) * q[3 * v + axis] / 65535
                XCTAssertEqual(decoded, Double(position[axis]), accuracy: (box[axis + 3] - box[axis]) / 65535 / 2 + 1e-7)
            }
        }
        XCTAssertEqual(meshObject["indexBits"] as? Int, 16)
        XCTAssertEqual(steps(try decode(meshObject["indices"])), [0, 1, 2, 0, 2, 3])
        XCTAssertEqual(try decode(meshObject["colors"]), Array([UInt8]([10, 20, 30]).repeated(4)))
        XCTAssertNil(meshObject["uvs"])
        let cameras = try XCTUnwrap(object["cameras"] as? [[String: Any]])
        XCTAssertEqual(cameras.map { $0["name"] as? String }, ["a.jpg", "b.jpg"])
        XCTAssertEqual(cameras[1]["t"] as? [Double], [-1, 0, 4])
        XCTAssertEqual(cameras[1]["R"] as? [Double], [1, 0, 0, 0, 1, 0, 0, 0, 1])
        XCTAssertEqual(object["up"] as? [Double], [0, 1, 0])
        let sparse = try XCTUnwrap(object["sparse"] as? [String: Any])
        XCTAssertEqual(sparse["count"] as? Int, 3)
        XCTAssertEqual(try decode(sparse["colors"]), [255, 0, 0, 0, 255, 0, 0, 0, 255])
        XCTAssertNil(ViewerScene.up(ofModelFrame: "reconstruction"))
    }

    /// Subsampling strides evenly and keeps each point's colour.
    func testSubsampledPointsKeepTheirColours() {
        let positions = (0..<10).map { SIMD3<Float>(Float($0), 0, 0) }
        let colours = (0..<10).map { SIMD3<UInt8>(UInt8($0), 0, 0) }
        let points = ViewerScene.Points.subsampled(positions, colors: colours, limit: 4)
        XCTAssertEqual(points.positions.map(\.x), [0, 3, 6, 9])
        XCTAssertEqual(points.colors.map(\.x), [0, 3, 6, 9])
        XCTAssertEqual(points.sourceCount, 10)
    }

    /// A model above the page's cap becomes the surface decimated below it, in vertex colours,
    /// and the page says so; one within it keeps its texture, re-encoded as JPEG no larger than
    /// the page's side.
    func testLargeModelIsDecimatedAndTexturesShrink() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-viewer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let layout = OutputLayout(folder: folder)
        // A 120 x 120 grid: 28,800 triangles.
        let n = 120
        var positions: [SIMD3<Float>] = [], uvs: [SIMD2<Float>] = []
        for y in 0...n { for x in 0...n {
            positions.append(SIMD3(Float(x) / Float(n), Float(y) / Float(n), 0.1 * sin(Float(x + y) / 7)))
            uvs.append(SIMD2(Float(x) / Float(n), Float(y) / Float(n)))
        } }
        var triangles: [SIMD3<Int32>] = []
        for y in 0..<n { for x in 0..<n {
            let a = Int32(y * (n + 1) + x), b = a + 1, c = a + Int32(n + 1), d = c + 1
            triangles += [SIMD3(a, b, d), SIMD3(a, d, c)]
        } }
        let normals = Array(repeating: SIMD3<Float>(0, 0, 1), count: positions.count)
        let big = MeshModel(positions: positions, normals: normals, colors: Array(repeating: SIMD3(200, 100, 50), count: positions.count),
                            triangles: triangles)
        XCTAssertGreaterThan(big.triangles.count, ViewerScene.maxTriangles)
        let decimated = try XCTUnwrap(try ViewerScene.viewerMesh(big, layout: layout))
        XCTAssertLessThanOrEqual(decimated.triangles.count, ViewerScene.maxTriangles)
        XCTAssertGreaterThan(decimated.triangles.count, ViewerScene.maxTriangles / 2)
        XCTAssertNil(decimated.uvs)
        XCTAssertEqual(Set(decimated.colors), [SIMD3(200, 100, 50)])
        XCTAssertTrue(decimated.reduction?.contains("of the model's 28,800 triangles") ?? false, decimated.reduction ?? "nil")

        // A small textured model with a 1500 x 40 PNG page.
        let png = folder.appendingPathComponent("page.png")
        try TestPNG.writeRGB(Array(repeating: SIMD3(40, 80, 160), count: 1500 * 40), width: 1500, height: 40, to: png)
        var small = MeshModel(positions: Array(positions[0..<4]), normals: Array(normals[0..<4]), colors: Array(big.colors[0..<4]),
                              uvs: Array(uvs[0..<4]), triangles: [SIMD3(0, 1, 2), SIMD3(1, 3, 2)])
        small.material.texture = MeshMaterial.Texture(data: try Data(contentsOf: png), fileName: "texture_0.png", width: 1500, height: 40)
        let textured = try XCTUnwrap(try ViewerScene.viewerMesh(small, layout: layout))
        XCTAssertEqual(textured.uvs?.count, 4)
        XCTAssertEqual(textured.groups.map { [$0.first, $0.count, $0.texture] }, [[0, 2, 0]])
        let jpeg = try PixelImage(decoding: try XCTUnwrap(textured.texturesJPEG.first))
        XCTAssertEqual([jpeg.width, jpeg.height], [ViewerScene.textureSide, 27])
        assertClose(Array(jpeg.pixels[0..<3]).map(Int.init), [40, 80, 160], within: 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: layout.work.path), [], "no file left behind")
    }

    /// Without three.js the section is one line saying why, and the page has no script at all.
    func testMissingLibraryIsOneLine() throws {
        let folder = URL(fileURLWithPath: "/nonexistent-three")
        let page = ReportHTML.render(makeSampleReport(), thumbnails: [:], viewer: scene(mesh: nil),
                                     viewerLibrary: ViewerLibrary.load(from: folder))
        XCTAssertTrue(page.contains("<section class=\"viewer\"><h2>3D view</h2><p class=\"note\">no 3D viewer: "
            + "/nonexistent-three/three.min.js is missing (install the Debian package libjs-three).</p></section>"))
        XCTAssertFalse(page.contains("<script"))
        XCTAssertFalse(ReportHTML.render(makeSampleReport(), thumbnails: [:]).contains("<script"), "no viewer, no script")
    }

    /// The library's text is inlined with "</script" defused; a sparse-only scene shows its points
    /// by default, and the viewer's markup comes before the renders.
    func testInlinedLibraryAndSparseOnlyToggles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-three-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("examples/js/controls"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try Data("var THREE = {}; var s = '</script>';".utf8).write(to: folder.appendingPathComponent("three.min.js"))
        try Data("THREE.OrbitControls = function () {};".utf8)
            .write(to: folder.appendingPathComponent("examples/js/controls/OrbitControls.js"))
        let library = ViewerLibrary.load(from: folder)
        let scripts = try library.get().scripts
        XCTAssertEqual(scripts.first, "var THREE = {}; var s = '<\\/script>';")
        let page = ReportHTML.render(makeSampleReport(), thumbnails: [:], viewer: scene(mesh: nil), viewerLibrary: library)
        XCTAssertEqual(page.components(separatedBy: "</script>").count - 1, 4, "data, two library files, the viewer")
        XCTAssertTrue(page.contains("<input type=\"checkbox\" id=\"viewer-show-sparse\" checked> sparse points (3)"))
        XCTAssertTrue(page.contains("<input type=\"checkbox\" id=\"viewer-show-cameras\" checked> cameras (2)"))
        XCTAssertFalse(page.contains("viewer-show-dense"))
        XCTAssertTrue(page.contains("the renders below show the model"), "the note a browser without WebGL keeps")
    }
}

private extension Array {
    func repeated(_ times: Int) -> [Element] { (0..<times).flatMap { _ in self } }
}

private func assertClose(_ a: [Int], _ b: [Int], within accuracy: Int, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertLessThanOrEqual(abs(x - y), accuracy, "\(a) against \(b)", file: file, line: line) }
}
