import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// COLMAP binary models: COLMAP's own bytes, the text model's content, hostile files, and
/// pycolmap reading them (where it is installed).
final class ColmapBinaryTests: XCTestCase {
    private func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("colmap-binary-tests-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Two cameras, two images (one in a subfolder), one point seen by both.
    private func tinyModel() -> Reconstruction {
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .simpleRadial, width: 640, height: 480, params: [500, 320, 240, 0.01]))
        model.addCamera(Camera(id: CameraID(2), model: .pinhole, width: 100, height: 50, params: [90, 91, 49.5, 24.5]))
        var a = Image(id: ImageID(7), name: "a.png", cameraID: CameraID(1),
                      camFromWorld: Rigid3(rotation: Rotation.matrix(quaternion: SIMD4(1, 0, 0, 0)), translation: SIMD3(0.5, 0, 1)),
                      points2D: [SIMD2(10, 20), SIMD2(30, 40)])
        a.point3DIDs[1] = Point3DID(3)
        var b = Image(id: ImageID(9), name: "sub/b.jpg", cameraID: CameraID(2),
                      camFromWorld: Rigid3(rotation: Rotation.matrix(quaternion: SIMD4(0.5, 0.5, 0.5, 0.5)), translation: SIMD3(-1, 2, -3)),
                      points2D: [SIMD2(1.5, 2.5), SIMD2(7, 8)])
        b.point3DIDs[0] = Point3DID(3)
        model.addImage(a)
        model.addImage(b)
        model.insertPoint3D(Point3D(position: SIMD3(1, 2, 3), color: SIMD3(10, 20, 30), error: 0.5,
                                    track: [TrackElement(imageID: ImageID(7), point2DIndex: 1),
                                            TrackElement(imageID: ImageID(9), point2DIndex: 0)]), id: Point3DID(3))
        return model
    }

    /// The bytes COLMAP's writer gives the tiny model: pycolmap 4.2.1's `Reconstruction.write_binary`
    /// of the same model in text (COLMAP's src/colmap/scene/reconstruction_io_binary.cc).
    private static let colmapBytes: [String: String] = [
        "cameras.bin": "020000000000000001000000020000008002000000000000e0010000000000000000000000407f4000000000000074400000000000006e407b14ae47e17a843f02000000010000006400000000000000320000000000000000000000008056400000000000c056400000000000c048400000000000803840",
        "images.bin": "020000000000000007000000000000000000f03f000000000000000000000000000000000000000000000000000000000000e03f0000000000000000000000000000f03f01000000612e706e6700020000000000000000000000000024400000000000003440ffffffffffffffff0000000000003e400000000000004440030000000000000009000000000000000000e03f000000000000e03f000000000000e03f000000000000e03f000000000000f0bf000000000000004000000000000008c0020000007375622f622e6a7067000200000000000000000000000000f83f000000000000044003000000000000000000000000001c400000000000002040ffffffffffffffff",
        "points3D.bin": "01000000000000000300000000000000000000000000f03f000000000000004000000000000008400a141e000000000000e03f020000000000000007000000010000000900000000000000",
    ]

    private static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    func testBytesAreCOLMAPsOwn() throws {
        for (name, data) in tinyModel().colmapBinaryFiles() {
            XCTAssertEqual(Self.hex(data), Self.colmapBytes[name], name)
        }
    }

    /// The binary files read back to the text files' model, value for value.
    func testBinaryHoldsTheTextModel() throws {
        var options = SyntheticScene.Options()
        options.numImages = 6
        options.numPoints = 150
        options.seed = 11
        var scene = SyntheticScene(options).reconstruction
        // An unregistered image is written in neither format, nor its observations.
        let dropped = scene.images.keys.sorted()[2]
        scene.images[dropped]?.camFromWorld = nil
        let directory = temporaryDirectory()
        try scene.writeColmap(to: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["cameras.bin", "cameras.txt", "images.bin", "images.txt", "points3D.bin", "points3D.txt"])
        let text = try Reconstruction.readColmapText(from: directory)
        let binary = try Reconstruction.readColmapBinary(from: directory)
        XCTAssertEqual(binary.images.count, 5)
        XCTAssertEqual(Set(binary.cameras.keys), Set(text.cameras.keys))
        for (id, camera) in text.cameras {
            XCTAssertEqual(binary.cameras[id]?.model, camera.model)
            XCTAssertEqual(binary.cameras[id]?.params, camera.params)
            XCTAssertEqual(binary.cameras[id].map { [$0.width, $0.height] }, [camera.width, camera.height])
        }
        XCTAssertEqual(Set(binary.images.keys), Set(text.images.keys))
        for (id, image) in text.images {
            let other = try XCTUnwrap(binary.images[id])
            XCTAssertEqual(other.name, image.name)
            XCTAssertEqual(other.cameraID, image.cameraID)
            XCTAssertEqual(other.camFromWorld?.translation, image.camFromWorld?.translation)
            XCTAssertEqual(other.camFromWorld.map { Rotation.quaternion($0.rotation) }, image.camFromWorld.map { Rotation.quaternion($0.rotation) })
            XCTAssertEqual(other.points2D, image.points2D)
            XCTAssertEqual(other.point3DIDs, image.point3DIDs)
        }
        XCTAssertEqual(Set(binary.points3D.keys), Set(text.points3D.keys))
        XCTAssertGreaterThan(binary.points3D.count, 100)
        for (id, point) in text.points3D {
            let other = try XCTUnwrap(binary.points3D[id])
            XCTAssertEqual(other.position, point.position)
            XCTAssertEqual(other.color, point.color)
            XCTAssertEqual(other.error, point.error)
            XCTAssertEqual(other.track, point.track)
            XCTAssertFalse(other.track.contains { $0.imageID == dropped })
        }
        // Either format is found from OUTPUT (its sparse/), and readColmap takes the binary alone.
        let output = temporaryDirectory()
        try scene.writeColmapBinary(to: OutputLayout(folder: output).sparse())
        XCTAssertEqual(Reconstruction.colmapModelDirectory(output), OutputLayout(folder: output).sparse())
        XCTAssertEqual(try Reconstruction.readColmap(from: Reconstruction.colmapModelDirectory(output)).points3D.count, text.points3D.count)
    }

    /// Truncated files, hostile counts, unknown models, trailing bytes and broken tracks: one
    /// line naming the file and the byte, never a crash or a huge allocation.
    func testHostileFilesAreRefusedInOneLine() throws {
        let good = Dictionary(uniqueKeysWithValues: tinyModel().colmapBinaryFiles())
        func attempt(_ file: String, _ edit: (inout [UInt8]) -> Void, expecting words: String) throws {
            let directory = temporaryDirectory()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, data) in good {
                var bytes = [UInt8](data)
                if name == file { edit(&bytes) }
                try Data(bytes).write(to: directory.appendingPathComponent(name))
            }
            XCTAssertThrowsError(try Reconstruction.readColmapBinary(from: directory), file) { error in
                let text = "\(error)"
                XCTAssertTrue(error is ColmapBinaryError, text)
                XCTAssertTrue(text.hasPrefix(file), text)
                XCTAssertTrue(text.contains(words), text)
                XCTAssertFalse(text.contains("\n"), text)
            }
        }
        try attempt("cameras.bin", { $0.removeLast(1) }, expecting: "truncated")
        try attempt("images.bin", { $0.removeLast(5) }, expecting: "count 2 is more than the 43 bytes left can hold")
        try attempt("points3D.bin", { $0[0...7] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f] }, expecting: "count")
        try attempt("cameras.bin", { $0[12] = 99 }, expecting: "unknown camera model id 99")
        try attempt("cameras.bin", { $0.append(0) }, expecting: "1 bytes after the last record")
        // The point's second observation names keypoint 5 of image 9, which has two.
        try attempt("points3D.bin", { $0[$0.count - 4] = 5 }, expecting: "has no keypoint 5")
        // OPENCV with distortion is read by neither reader.
        try attempt("cameras.bin", { $0[12] = 4 }, expecting: "OPENCV with non-zero distortion")
    }

    func testANameBinaryCannotHoldIsRefusedBeforeWriting() throws {
        var model = tinyModel()
        model.images[ImageID(7)]?.name = "a\u{0}b.png"
        let directory = temporaryDirectory()
        XCTAssertThrowsError(try model.writeColmapBinary(to: directory)) { error in
            XCTAssertTrue("\(error)".contains("NUL"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
    }

    /// pycolmap (COLMAP's readers) reads the binary files as the text files, value for value.
    /// Skipped where pycolmap is not installed (scripts/setup does not install it: the test
    /// above holds the layout to COLMAP's bytes for CI).
    func testPycolmapReadsTheBinaryAsTheText() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import pycolmap"]
        probe.standardError = Pipe()
        try probe.run()
        probe.waitUntilExit()
        try XCTSkipIf(probe.terminationStatus != 0, "pycolmap is not installed")
        var options = SyntheticScene.Options()
        options.numImages = 5
        options.seed = 3
        let directory = temporaryDirectory()
        try SyntheticScene(options).reconstruction.writeColmap(to: directory)
        let script = Repository.root.appendingPathComponent("scripts/analysis/colmap-bin-vs-txt.py").path
        let output = try XCTUnwrap(PythonCheck.run("import runpy, sys\nsys.argv = [\(BadInputs.python(script)), \(BadInputs.python(directory.path))]\n"
                                                   + "runpy.run_path(sys.argv[0], run_name='__main__')", modules: ["pycolmap"]))
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        XCTAssertEqual(result["equal"] as? Bool, true, output)
        XCTAssertEqual(result["images"] as? Int, 5)
        XCTAssertEqual(result["points3D"] as? Int, options.numPoints)
    }
}
