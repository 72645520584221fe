import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// Models written by ``ModelExporter`` read back whole by ``ModelReader``: geometry, colours,
/// texture coordinates in our v-up convention (GLB stores v down), and the texture, rendered.
final class ModelReaderTests: XCTestCase {
    private let formats = ["obj", "glb", "usdz"]

    func testATexturedQuadRendersTexelForPixelAfterARoundTrip() throws {
        let folder = try makeBridgeTestDirectory(self)
        let texture = RenderTestScenes.checkerTexture()
        let quad = RenderTestScenes.texturedQuad(texture)
        let camera = RenderTestScenes.frontCamera(width: 64, height: 64, focal: 64)
        let flipped = RenderTestScenes.flippedVertically(texture)
        for format in formats {
            let url = folder.appendingPathComponent("quad.\(format)")
            try ModelExporter.write(quad, to: url)
            let model = try ModelReader.read(url)
            XCTAssertEqual(model.uvs, quad.uvs, format)
            XCTAssertEqual(model.material.texture?.data, quad.material.texture?.data, format)
            let image = try MeshRenderer(model).render(camera)
            XCTAssertEqual(RenderTestScenes.psnr(image, texture), .infinity, "\(format): an exact copy")
            XCTAssertLessThan(RenderTestScenes.psnr(image, flipped), 15, "\(format): must not match the flipped texture")
        }
    }

    func testAFlippedTextureInTheFileIsNotReadAsTheOriginal() throws {
        // Guard against a reader and renderer that both flip v: a model carrying the flipped
        // image renders the flipped image, not the original.
        let folder = try makeBridgeTestDirectory(self)
        let texture = RenderTestScenes.checkerTexture()
        let flipped = RenderTestScenes.flippedVertically(texture)
        let quad = RenderTestScenes.texturedQuad(flipped)
        let camera = RenderTestScenes.frontCamera(width: 64, height: 64, focal: 64)
        for format in ["obj", "glb"] {
            let url = folder.appendingPathComponent("flipped.\(format)")
            try ModelExporter.write(quad, to: url)
            let image = try MeshRenderer(try ModelReader.read(url)).render(camera)
            XCTAssertEqual(RenderTestScenes.psnr(image, flipped), .infinity, format)
            XCTAssertLessThan(RenderTestScenes.psnr(image, texture), 15, format)
        }
    }

    func testGeometryAndColoursSurviveEveryFormat() throws {
        let folder = try makeBridgeTestDirectory(self)
        var cube = RenderTestScenes.cube()
        cube.colors = (0..<8).map { (k: Int) -> SIMD3<UInt8> in
            let r = UInt8(30 * k), g = UInt8(255 - 20 * k), b = UInt8(7 * k + 1)
            return SIMD3<UInt8>(r, g, b)
        }
        for format in ModelFormat.allCases {
            let url = folder.appendingPathComponent("cube.\(format.rawValue)")
            try ModelExporter.write(cube, to: url)
            let model = try ModelReader.read(url)
            XCTAssertEqual(model.triangles.count, 12, format.rawValue)
            XCTAssertNil(model.material.texture, format.rawValue)
            // Each triangle's corners, as positions and colours, in the file's order.
            func corners(_ m: MeshModel) -> [[Float]] {
                m.triangles.map { t in [t.x, t.y, t.z].flatMap { i in
                    let p = m.positions[Int(i)]
                    return [p.x, p.y, p.z]
                } }
            }
            XCTAssertEqual(corners(model), corners(cube), format.rawValue)
            if format == .stl {
                XCTAssertTrue(model.colors.allSatisfy { $0 == ModelReader.grey })
                continue
            }
            for (read, written) in zip(model.triangles.flatMap { [$0.x, $0.y, $0.z] }, cube.triangles.flatMap { [$0.x, $0.y, $0.z] }) {
                let ca = model.colors[Int(read)], cb = cube.colors[Int(written)]
                let a = SIMD3<Int>(Int(ca.x), Int(ca.y), Int(ca.z)), b = SIMD3<Int>(Int(cb.x), Int(cb.y), Int(cb.z))
                XCTAssertLessThanOrEqual((a &- b).max(), 1, "\(format.rawValue): colour \(a) for \(b)")
                XCTAssertGreaterThanOrEqual((a &- b).min(), -1, "\(format.rawValue): colour \(a) for \(b)")
            }
        }
    }

    func testOtherToolsObjFacesSplitVerticesByTextureCoordinate() throws {
        let folder = try makeBridgeTestDirectory(self)
        try TestPNG.writeRGB([SIMD3(255, 0, 0), SIMD3(0, 255, 0), SIMD3(0, 0, 255), SIMD3(255, 255, 255)],
                             width: 2, height: 2, to: folder.appendingPathComponent("t.png"))
        try "newmtl m\nmap_Kd -s 1 1 1 t.png\n".write(to: folder.appendingPathComponent("x.mtl"), atomically: true, encoding: .utf8)
        let text = """
        mtllib x.mtl
        v 0 0 0
        v 1 0 0
        v 1 1 0
        v 0 1 0
        vt 0 0
        vt 1 0
        vt 1 1
        vt 0 1
        vt 0.5 0.5
        usemtl m
        f 1/1 2/2 3/3 4/4
        f -4/5 -2/-1 -1/-2
        """
        try text.write(to: folder.appendingPathComponent("x.obj"), atomically: true, encoding: .utf8)
        let model = try ModelReader.read(folder.appendingPathComponent("x.obj"))
        XCTAssertEqual(model.triangles.count, 3)
        XCTAssertEqual(model.positions.count, 6, "4 corners with their own vt; v1 and v3 again with vt 5; v4/vt4 shared")
        XCTAssertEqual(model.material.texture?.width, 2)
        XCTAssertEqual(model.uvs?[Int(model.triangles[2].x)], SIMD2(0.5, 0.5))
        XCTAssertEqual(model.positions[Int(model.triangles[2].y)], SIMD3(1, 1, 0))
    }

    func testBadFilesAreOneLineErrorsNamingThem() throws {
        let folder = try makeBridgeTestDirectory(self)
        let garbage = folder.appendingPathComponent("garbage.glb")
        try Data("not a model".utf8).write(to: garbage)
        let noTexture = folder.appendingPathComponent("lost.obj")
        try ModelExporter.write(RenderTestScenes.texturedQuad(RenderTestScenes.checkerTexture()), to: noTexture)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("checker.png"))
        let cases: [(URL, String)] = [
            (folder.appendingPathComponent("missing.obj"), "no such file"),
            (garbage, "not a glTF binary"),
            (folder.appendingPathComponent("x.xyz"), "unknown model format"),
            (noTexture, "checker.png"),
        ]
        try Data().write(to: folder.appendingPathComponent("x.xyz"))
        for (url, words) in cases {
            XCTAssertThrowsError(try ModelReader.read(url)) { error in
                let line = "\(error)"
                XCTAssertTrue(line.contains(url.path), line)
                XCTAssertTrue(line.contains(words), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
    }
}
