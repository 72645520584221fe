import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `photogrammetry render` run as a user runs it (the built binary): the PNGs written and their
/// sizes, renders from a COLMAP model's cameras, one line on standard error for bad input.
final class RenderCommandTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    private func run(_ arguments: [String]) throws -> Outcome {
        let running = try BuiltProgram.start(arguments, logs: try makeBridgeTestDirectory(self))
        return try running.wait(timeout: 120)
    }

    private func png(_ url: URL) throws -> PixelImage { try PixelImage(decoding: try Data(contentsOf: url), channels: 4) }

    private func coverage(_ image: PixelImage) -> Int {
        stride(from: 3, to: image.pixels.count, by: 4).filter { image.pixels[$0] == 255 }.count
    }

    func testFourViewsAroundTheBox() throws {
        let folder = try makeBridgeTestDirectory(self)
        let model = folder.appendingPathComponent("cube.glb")
        try ModelExporter.write(RenderTestScenes.cube(color: SIMD3(200, 120, 40)), to: model)
        let output = folder.appendingPathComponent("renders")
        let outcome = try run(["render", model.path, output.path, "96"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted(),
                       ["back.png", "front.png", "left.png", "right.png"])
        for name in ["front", "right", "back", "left"] {
            let image = try png(output.appendingPathComponent("\(name).png"))
            XCTAssertEqual(max(image.width, image.height), 96, name)
            let covered = coverage(image)
            XCTAssertGreaterThan(covered, image.width * image.height / 4, name)
            XCTAssertLessThan(covered, image.width * image.height, name)
            XCTAssertEqual(Array(image[0, 0]), [0, 0, 0, 0], "\(name): transparent background")
            XCTAssertEqual(Array(image[image.width / 2, image.height / 2]), [200, 120, 40, 255], "\(name): flat colour")
        }
        XCTAssertEqual(outcome.outputLines.count, 6, outcome.standardOutput)
    }

    func testTheFrontViewLooksAlongMinusZWithYUp() throws {
        // A cube whose top (y = 1) is red and front (z = 1) green: seen from the front and above,
        // the top of the silhouette is red and its bottom green.
        var faces: [MeshModel] = []
        let top = RenderTestScenes.square(low: 0, high: 1, depth: 0, color: SIMD3(255, 0, 0))
        faces.append(MeshModel(positions: top.positions.map { SIMD3($0.x, 1, $0.y) }, normals: top.normals, colors: top.colors, triangles: top.triangles))
        faces.append(RenderTestScenes.square(low: 0, high: 1, depth: 1, color: SIMD3(0, 255, 0)))
        let folder = try makeBridgeTestDirectory(self)
        let model = folder.appendingPathComponent("faces.ply")
        try ModelExporter.write(RenderTestScenes.merged(faces), to: model)
        let output = folder.appendingPathComponent("r")
        let outcome = try run(["render", model.path, output.path, "64"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let image = try png(output.appendingPathComponent("front.png"))
        let column = image.width / 2
        let rows = (0..<image.height).filter { image[column, $0].last == 255 }
        let first = try XCTUnwrap(rows.first), last = try XCTUnwrap(rows.last)
        XCTAssertEqual(Array(image[column, first].prefix(3)), [255, 0, 0])
        XCTAssertEqual(Array(image[column, last].prefix(3)), [0, 255, 0])
    }

    func testColmapCamerasGiveOnePNGPerImageAtItsSize() throws {
        let folder = try makeBridgeTestDirectory(self)
        let model = folder.appendingPathComponent("cube.obj")
        try ModelExporter.write(RenderTestScenes.cube(), to: model)
        var reconstruction = Reconstruction()
        reconstruction.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 120, height: 90, params: [100, 100, 60, 45]))
        reconstruction.addCamera(Camera(id: CameraID(2), model: .simpleRadial, width: 80, height: 100, params: [90, 40, 50, 0.05]))
        let centre = SIMD3<Double>(0.5, 0.5, 0.5)
        reconstruction.addImage(Image(id: ImageID(1), name: "a.jpg", cameraID: CameraID(1),
                                      camFromWorld: RenderViews.lookAt(centre, from: SIMD3(2, 1.5, 3))))
        reconstruction.addImage(Image(id: ImageID(2), name: "sub/b.JPG", cameraID: CameraID(2),
                                      camFromWorld: RenderViews.lookAt(centre, from: SIMD3(-2.5, 1, -2))))
        let sparse = folder.appendingPathComponent("sparse")
        try reconstruction.writeColmapText(to: sparse)

        let output = folder.appendingPathComponent("renders")
        let outcome = try run(["render", model.path, output.path, "--cameras", sparse.path])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let a = try png(output.appendingPathComponent("a.png"))
        let b = try png(output.appendingPathComponent("sub/b.png"))
        XCTAssertEqual([a.width, a.height, b.width, b.height], [120, 90, 80, 100])
        // The cube's centre projects to the principal point: covered.
        XCTAssertEqual(a[60, 45].last, 255)
        XCTAssertEqual(b[40, 50].last, 255)
        XCTAssertEqual(Array(a[0, 0]), [0, 0, 0, 0])
        // The same view rendered in process: the binary wrote exactly it.
        let camera = RenderCamera(width: 120, height: 90, focalLengths: SIMD2(100, 100), principalPoint: SIMD2(60, 45),
                                  camFromWorld: try XCTUnwrap(reconstruction.images[ImageID(1)]?.camFromWorld))
        XCTAssertEqual(try MeshRenderer(try ModelReader.read(model)).render(camera).pixels.map { $0 > 0 },
                       a.pixels.map { $0 > 0 })

        let scaled = folder.appendingPathComponent("small")
        let small = try run(["render", model.path, scaled.path, "60", "--cameras", sparse.path])
        XCTAssertEqual(small.status, 0, small.standardError)
        let c = try png(scaled.appendingPathComponent("a.png")), d = try png(scaled.appendingPathComponent("sub/b.png"))
        XCTAssertEqual([c.width, c.height, d.width, d.height], [60, 45, 48, 60])
    }

    func testBadInputIsOneLineAndWritesNothing() throws {
        let folder = try makeBridgeTestDirectory(self)
        let good = folder.appendingPathComponent("good.stl")
        try ModelExporter.write(RenderTestScenes.cube(), to: good)
        let garbage = folder.appendingPathComponent("garbage.glb")
        try Data("this is not a model".utf8).write(to: garbage)
        let unknown = folder.appendingPathComponent("model.xyz")
        try Data("1 2 3".utf8).write(to: unknown)
        let badTexture = folder.appendingPathComponent("bad.glb")
        var quad = RenderTestScenes.texturedQuad(RenderTestScenes.checkerTexture())
        quad.material.texture?.data = Data("not a png".utf8)
        try ModelExporter.write(quad, to: badTexture)
        let noModel = folder.appendingPathComponent("no-such-model")
        let cases: [([String], String)] = [
            ([folder.appendingPathComponent("missing.obj").path], "missing.obj"),
            ([garbage.path], garbage.path),
            ([unknown.path], unknown.path),
            ([badTexture.path], badTexture.path),
            ([good.path, "--cameras", noModel.path], noModel.path),
        ]
        for (index, (arguments, named)) in cases.enumerated() {
            let output = folder.appendingPathComponent("out-\(index)")
            let outcome = try run(["render", arguments[0], output.path] + arguments.dropFirst())
            XCTAssertEqual(outcome.status, 1, "\(arguments)")
            XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
            let line = outcome.errorLines.first ?? ""
            XCTAssertTrue(line.hasPrefix("photogrammetry: error: "), line)
            XCTAssertTrue(line.contains(named), line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "nothing written for \(arguments)")
        }
        for arguments in [["render", good.path], ["render", good.path, folder.appendingPathComponent("x").path, "huge"]] {
            let usage = try run(arguments)
            XCTAssertEqual(usage.status, 2)
            XCTAssertEqual(usage.errorLines.count, 1, usage.standardError)
        }
    }
}
