import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

final class ColmapTextTests: XCTestCase {
    private var directories: [URL] = []

    override func tearDown() {
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
        directories = []
        super.tearDown()
    }

    private func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("colmap-text-tests-\(UUID().uuidString)")
        directories.append(url)
        return url
    }

    private func write(_ files: [String: String], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
    }

    /// Three cameras, five registered images and one unregistered, 40 points with tracks.
    private func makeScene(seed: UInt64) -> Reconstruction {
        var rng = SplitMix64(seed: seed)
        var scene = Reconstruction()
        scene.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480,
                               params: [1520.4, 1525.9, 302.32, 246.87]))
        scene.addCamera(Camera(id: CameraID(2), model: .simpleRadial, width: 1024, height: 768,
                               params: [812.123456789, 511.5, 383.25, -0.0123]))
        scene.addCamera(Camera(id: CameraID(3), model: .radial, width: 3, height: 2,
                               params: [1.0 / 3.0, 1.5, 1, 1e-5, -2.5e-7]))
        for k in 1...6 {
            let axis = SIMD3(Double.random(in: -1...1, using: &rng), Double.random(in: -1...1, using: &rng),
                             Double.random(in: -1...1, using: &rng))
            let pose = Rigid3(angleAxis: axis * 2, translation: SIMD3(Double.random(in: -5...5, using: &rng),
                                                                      Double.random(in: -5...5, using: &rng),
                                                                      Double.random(in: 1...9, using: &rng)))
            let keypoints = (0..<30).map { _ in
                SIMD2(Double.random(in: 0..<640, using: &rng), Double.random(in: 0..<480, using: &rng))
            }
            scene.addImage(Image(id: ImageID(k), name: "frame_\(k).jpg", cameraID: CameraID(1 + k % 3),
                                 camFromWorld: k == 6 ? nil : pose, points2D: keypoints))
        }
        for p in 0..<40 {
            let images = [1, 2, 3, 4, 5].shuffled(using: &rng).prefix(2 + p % 4)
            let track = images.map { TrackElement(imageID: ImageID($0), point2DIndex: p % 30) }
            // Keypoint p % 30 is reused across points only when free.
            guard track.allSatisfy({ scene.images[$0.imageID]!.point3DIDs[$0.point2DIndex] == nil }) else { continue }
            scene.addPoint3D(Point3D(position: SIMD3(Double.random(in: -3...3, using: &rng),
                                                     Double.random(in: -3...3, using: &rng),
                                                     Double.random(in: -3...3, using: &rng)),
                                     color: SIMD3(UInt8(p), 255, UInt8(3 * p)),
                                     error: Double.random(in: 0...2, using: &rng), track: Array(track)))
        }
        return scene
    }

    func testRoundTripKeepsEveryValue() throws {
        let scene = makeScene(seed: 7)
        XCTAssertGreaterThan(scene.points3D.count, 5)
        let directory = temporaryDirectory().appendingPathComponent("nested/sparse")
        try scene.writeColmapText(to: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["cameras.txt", "images.txt", "points3D.txt"], "no temporary files left")

        let read = try Reconstruction.readColmapText(from: directory)
        XCTAssertEqual(read.cameras, scene.cameras)
        // Unregistered images are not written, as COLMAP does.
        XCTAssertEqual(read.images.keys.sorted(), scene.registeredImageIDs)
        for (id, image) in read.images {
            let original = scene.images[id]!
            XCTAssertEqual(image.name, original.name)
            XCTAssertEqual(image.cameraID, original.cameraID)
            let a = image.camFromWorld!, b = original.camFromWorld!
            for (x, y) in zip(a.rotation.rowMajor, b.rotation.rowMajor) { XCTAssertEqual(x, y, accuracy: 1e-12) }
            XCTAssertLessThan(length(a.translation - b.translation), 1e-12)
            XCTAssertEqual(image.points2D, original.points2D)
            XCTAssertEqual(image.point3DIDs, original.point3DIDs)
        }
        XCTAssertEqual(read.points3D.keys.sorted(), scene.points3D.keys.sorted())
        for (id, point) in read.points3D {
            let original = scene.points3D[id]!
            XCTAssertLessThan(length(point.position - original.position), 1e-12)
            XCTAssertEqual(point.color, original.color)
            XCTAssertEqual(point.error, original.error, accuracy: 1e-12)
            XCTAssertEqual(point.track, original.track)
        }
        // New points continue after the largest id read.
        var copy = read
        let next = copy.addPoint3D(Point3D(position: .zero))
        XCTAssertGreaterThan(next, read.points3D.keys.max()!)

        // Writing again over the same directory replaces the files.
        try read.writeColmapText(to: directory)
        let again = try Reconstruction.readColmapText(from: directory)
        XCTAssertEqual(again.points3D.count, read.points3D.count)
    }

    func testHeadersCarryCountsAndMeans() throws {
        let scene = makeScene(seed: 11)
        let directory = temporaryDirectory()
        try scene.writeColmapText(to: directory)
        let images = try String(contentsOf: directory.appendingPathComponent("images.txt"), encoding: .utf8)
        let points = try String(contentsOf: directory.appendingPathComponent("points3D.txt"), encoding: .utf8)
        let registered = scene.registeredImageIDs.count
        let observations = scene.registeredImageIDs.reduce(0) { $0 + scene.images[$1]!.numPoints3D }
        XCTAssertTrue(images.contains("# Number of images: \(registered), mean observations per image: "
                                      + ColmapTextFile.format(Double(observations) / Double(registered))))
        XCTAssertTrue(points.contains("# Number of points: \(scene.points3D.count), mean track length: "))
        // Keypoints without a 3D point carry -1.
        XCTAssertTrue(images.contains(" -1"))
    }

    func testReadsGroundTruthWithEmptyPoints2DAndNoPoints() throws {
        let directory = temporaryDirectory()
        try write([
            "cameras.txt": """
            # CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]
            1 PINHOLE 640 480 1520.400000 1525.900000 302.320000 246.870000

            """,
            "images.txt": """
            # IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME
            # POINTS2D[] (none)
            1 0.082234477064 -0.710053154270 -0.697787157771 0.046422961383 -0.029214952693 -0.024192386913 0.522695619330 1 templeR0001.png

            2 0.034771839364 -0.707215458387 -0.699946873204 0.093335895015 -0.028822233976 -0.030636101802 0.525505113107 1 templeR0002.png

            3 1 0 0 0 0 0 0 1 templeR0003.png
            """,
            "points3D.txt": "# POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[]\n",
        ], to: directory)
        let model = try Reconstruction.readColmapText(from: directory)
        XCTAssertEqual(model.cameras.count, 1)
        XCTAssertEqual(model.cameras[CameraID(1)]?.params, [1520.4, 1525.9, 302.32, 246.87])
        XCTAssertEqual(model.images.count, 3)
        XCTAssertEqual(model.registeredImageIDs.count, 3)
        XCTAssertEqual(model.images[ImageID(2)]?.name, "templeR0002.png")
        XCTAssertEqual(model.images[ImageID(1)]?.points2D.count, 0)
        XCTAssertEqual(model.images[ImageID(3)]?.camFromWorld, .identity)
        XCTAssertTrue(model.points3D.isEmpty)
        let q = Rotation.quaternion(model.images[ImageID(1)]!.camFromWorld!.rotation)
        let expected = SIMD4(0.082234477064, -0.710053154270, -0.697787157771, 0.046422961383)
        XCTAssertLessThan(length(SIMD3(q.y, q.z, q.w) - SIMD3(expected.y, expected.z, expected.w)), 1e-9)

        // points3D.txt is optional.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("points3D.txt"))
        XCTAssertEqual(try Reconstruction.readColmapText(from: directory).images.count, 3)
    }

    func testMalformedLinesNameFileAndLine() throws {
        let cameras = "# c\n1 PINHOLE 640 480 500 500 320 240\n"
        func error(_ files: [String: String]) throws -> ColmapTextError {
            let directory = temporaryDirectory()
            try write(files, to: directory)
            do {
                _ = try Reconstruction.readColmapText(from: directory)
            } catch let error as ColmapTextError {
                XCTAssertFalse(error.description.contains("\n"), "one line")
                return error
            }
            XCTFail("expected an error")
            return ColmapTextError(file: "", message: "")
        }

        let badNumber = try error([
            "cameras.txt": cameras,
            "images.txt": "# header\n# header\n1 1 0 0 0 0 0 0 1 a.png\n\n2 1 0 0 zero 0 0 0 1 b.png\n\n",
        ])
        XCTAssertEqual(badNumber.file, "images.txt")
        XCTAssertEqual(badNumber.line, 5)
        XCTAssertTrue(badNumber.description.hasPrefix("images.txt:5: QZ"), badNumber.description)

        let badPoints2D = try error([
            "cameras.txt": cameras,
            "images.txt": "1 1 0 0 0 0 0 0 1 a.png\n10 20 -1 30 40\n",
        ])
        XCTAssertEqual(badPoints2D.line, 2)

        let badCamera = try error(["cameras.txt": "1 PINHOLE 640 480 500 500 320\n", "images.txt": ""])
        XCTAssertEqual(badCamera.file, "cameras.txt")
        XCTAssertEqual(badCamera.line, 1)
        XCTAssertTrue(badCamera.description.contains("PINHOLE takes 4 parameters"), badCamera.description)

        let missingCamera = try error(["cameras.txt": cameras, "images.txt": "1 1 0 0 0 0 0 0 9 a.png\n\n"])
        XCTAssertEqual(missingCamera.line, 1)
        XCTAssertTrue(missingCamera.description.contains("camera 9"), missingCamera.description)

        let badTrack = try error([
            "cameras.txt": cameras,
            "images.txt": "1 1 0 0 0 0 0 0 1 a.png\n10 20 1\n",
            "points3D.txt": "# p\n# p\n1 0 0 0 1 2 3 0.5 1 0 1 5\n",
        ])
        XCTAssertEqual(badTrack.file, "points3D.txt")
        XCTAssertEqual(badTrack.line, 3)

        let oddTrack = try error([
            "cameras.txt": cameras,
            "images.txt": "1 1 0 0 0 0 0 0 1 a.png\n10 20 1\n",
            "points3D.txt": "1 0 0 0 1 2 3 0.5 1\n",
        ])
        XCTAssertEqual(oddTrack.line, 1)

        let missing = try error(["cameras.txt": cameras])
        XCTAssertEqual(missing.file, "images.txt")
        XCTAssertNil(missing.line)
    }

    func testTracksAsColmapWritesThem() throws {
        // COLMAP tracks may hold two keypoints of one image; a track element in an unregistered
        // image is not written (the image is not either).
        let directory = temporaryDirectory()
        try write([
            "cameras.txt": "1 SIMPLE_PINHOLE 100 100 50 50 50\n",
            "images.txt": "1 1 0 0 0 0 0 0 1 a.png\n1 2 7 3 4 7\n2 1 0 0 0 1 0 0 1 b.png\n5 6 7\n",
            "points3D.txt": "7 1 2 3 0 0 0 0.1 1 0 1 1 2 0\n",
        ], to: directory)
        var model = try Reconstruction.readColmapText(from: directory)
        XCTAssertEqual(model.points3D[Point3DID(7)]?.track.count, 3)
        XCTAssertEqual(model.images[ImageID(1)]?.point3DIDs, [Point3DID(7), Point3DID(7)])

        model.images[ImageID(2)]?.camFromWorld = nil
        let rewritten = temporaryDirectory()
        try model.writeColmapText(to: rewritten)
        let read = try Reconstruction.readColmapText(from: rewritten)
        XCTAssertEqual(read.images.count, 1)
        XCTAssertEqual(read.points3D[Point3DID(7)]?.track,
                       [TrackElement(imageID: ImageID(1), point2DIndex: 0), TrackElement(imageID: ImageID(1), point2DIndex: 1)])
    }

    func testUnsupportedCameraModels() throws {
        let images = "1 1 0 0 0 0 0 0 1 a.png\n\n"
        let zeroDistortion = temporaryDirectory()
        try write(["cameras.txt": "1 OPENCV 640 480 500 510 320 240 0 0 0 0\n2 FULL_OPENCV 10 10 1 2 3 4 0 0 0 0 0 0 0 0\n",
                   "images.txt": images], to: zeroDistortion)
        let model = try Reconstruction.readColmapText(from: zeroDistortion)
        XCTAssertEqual(model.cameras[CameraID(1)],
                       Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [500, 510, 320, 240]))
        XCTAssertEqual(model.cameras[CameraID(2)]?.model, .pinhole)

        let distorted = temporaryDirectory()
        try write(["cameras.txt": "# c\n1 OPENCV 640 480 500 510 320 240 0.1 0 0 0\n", "images.txt": images], to: distorted)
        XCTAssertThrowsError(try Reconstruction.readColmapText(from: distorted)) { error in
            let description = "\(error)"
            XCTAssertTrue(description.hasPrefix("cameras.txt:2: camera model OPENCV with non-zero distortion"), description)
        }

        let fisheye = temporaryDirectory()
        try write(["cameras.txt": "1 OPENCV_FISHEYE 640 480 500 510 320 240 0 0 0 0\n", "images.txt": images], to: fisheye)
        XCTAssertThrowsError(try Reconstruction.readColmapText(from: fisheye)) { error in
            XCTAssertTrue("\(error)".contains("OPENCV_FISHEYE is not supported"), "\(error)")
        }
    }

    /// A name with a line break would shift every line of images.txt after it: refused, and
    /// nothing is written.
    func testNamesWithLineBreaksAreRefusedBeforeWriting() throws {
        for bad in ["a\nb.jpg", "a\rb.jpg", "tab\there.jpg", ""] {
            var scene = makeScene(seed: 3)
            scene.images[ImageID(1)]?.name = bad
            let directory = temporaryDirectory()
            XCTAssertThrowsError(try scene.writeColmapText(to: directory)) { error in
                let message = "\(error)"
                XCTAssertTrue(message.hasPrefix("images.txt: image 1: name"), message)
                XCTAssertFalse(message.contains("\n"), message)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("images.txt").path))
        }
    }

    /// Spaces are written as they are (as COLMAP writes them) and read back exactly.
    func testNamesWithSpacesReadBackExactly() throws {
        var scene = makeScene(seed: 4)
        scene.images[ImageID(1)]?.name = "IMG 0001 (1).jpg"
        scene.images[ImageID(2)]?.name = "two  spaces.jpg"
        let directory = temporaryDirectory()
        try scene.writeColmapText(to: directory)
        let back = try Reconstruction.readColmapText(from: directory)
        XCTAssertEqual(back.images[ImageID(1)]?.name, "IMG 0001 (1).jpg")
        XCTAssertEqual(back.images[ImageID(2)]?.name, "two  spaces.jpg")
    }
}
