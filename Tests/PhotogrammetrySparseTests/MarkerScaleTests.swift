import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Metric scale from printed markers, on rendered views of a board at known poses in a model of
/// known scale: the factor, outlier markers, known distances between markers and between picked
/// points; and the marker description's parsing and validation.
final class MarkerScaleTests: XCTestCase {
    /// One model unit is this many metres in the test models.
    let truth = 0.0372

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-markers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Renders `poses` of the board as PNGs into a folder, and a model of them in units of
    /// `truth` metres (camera centres divided by it), each pose a little perturbed as SfM's would be.
    func capture(_ board: SyntheticMarkerBoard, poses: [Rigid3], camera: Camera) throws -> (Reconstruction, [CaptureImage]) {
        let folder = try temporaryDirectory()
        var model = Reconstruction()
        model.addCamera(camera)
        var images: [CaptureImage] = []
        let exif = ImageMetadata(orientation: 1, focalLengthMM: 0, focalLength35mm: 0, focalPlaneXResolution: 0,
                                 focalPlaneUnitMM: 0, pixelWidth: camera.width, pixelHeight: camera.height, make: "", model: "")
        for (i, pose) in poses.enumerated() {
            let name = String(format: "%04d.png", i)
            let url = folder.appendingPathComponent(name)
            try TestPNG.writeGrey(board.render(camera, camFromWorld: pose), width: camera.width, height: camera.height, to: url)
            images.append(CaptureImage(name: name, url: url, width: camera.width, height: camera.height, exif: exif))
            model.addImage(Image(id: ImageID(i + 1), name: name, cameraID: camera.id,
                                 camFromWorld: Rigid3(rotation: pose.rotation, translation: pose.translation / truth)))
        }
        return (model, images)
    }

    func testFactorFromRenderedViews() throws {
        let board = try SyntheticMarkerBoard.ring()
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [620, 620, 320, 240])
        let poses = SyntheticMarkerBoard.orbit(count: 6, distance: 0.55, elevationDeg: 50)
        let (model, images) = try capture(board, poses: poses, camera: camera)

        // Marker 5 said to be 0.06 m where it is 0.05: an outlier among eight.
        let spec = try MarkerSpec(dictionary: board.dictionary, sizeMetres: 0.05, sizesMetres: [5: 0.06])
        let scaling = try MarkerScaling.measure([model], images: images, spec: spec, options: MarkerScale.Options(), threads: 2)
        XCTAssertEqual(scaling.idsDetected, 8)
        XCTAssertEqual(scaling.imagesWithMarkers, 6)
        XCTAssertEqual(scaling.markers.map(\.id), Array(0..<8))
        let estimate = try XCTUnwrap(scaling.estimates.first ?? nil)
        XCTAssertEqual(estimate.factor / truth, 1, accuracy: 0.001)
        XCTAssertEqual(estimate.points, 7)
        XCTAssertEqual(estimate.outliers, 1)
        XCTAssertLessThan(estimate.spread, 0.005)
        // Each located corner is the true corner, in model units.
        for marker in scaling.markers {
            for (corner, expected) in zip(marker.corners, board.corners(of: marker.id)) {
                XCTAssertLessThan(length(corner * truth - expected), 0.0005, "marker \(marker.id)")
            }
        }

        // Markers 0 and 4 are diagonal across the board: 0.22 √2 m between centres.
        let markerDistance = try KnownDistance(parsing: "0,4=\(0.22 * 2.0.squareRoot())")
        let fromMarkers = try UserScaling.measure(.knownDistance(markerDistance), model: model, markers: scaling.markers, images: images)
        XCTAssertEqual(try XCTUnwrap(fromMarkers.factor) / truth, 1, accuracy: 0.001)
        XCTAssertEqual(fromMarkers.source, "known_distance")
        let missing = try UserScaling.measure(.knownDistance(try KnownDistance(parsing: "0,9=0.3")), model: model,
                                              markers: scaling.markers, images: images)
        XCTAssertNil(missing.factor)
        XCTAssertTrue(missing.note?.contains("marker 9") == true, missing.note ?? "")

        // Two board points picked in two views each, as a viewer shows pixels (half a pixel off ours).
        let a = SIMD3(-0.11, -0.11, 0.0), b = SIMD3(0.11, 0.0, 0.0)
        func picked(_ point: SIMD3<Double>, views: [Int]) throws -> String {
            try views.map { i in
                let pixel = try camera.project(points: [poses[i].apply(point)])[0] - 0.5
                return images[i].name + String(format: "@%.3f,%.3f", pixel.x, pixel.y)
            }.joined(separator: "+")
        }
        let text = try picked(a, views: [0, 2]) + "/" + picked(b, views: [1, 3, 4]) + "=\(length(b - a))"
        let fromPoints = try UserScaling.measure(.knownDistance(try KnownDistance(parsing: text)), model: model, markers: nil, images: images)
        XCTAssertEqual(try XCTUnwrap(fromPoints.factor) / truth, 1, accuracy: 1e-4)
        XCTAssertThrowsError(try UserScaling.measure(.knownDistance(try KnownDistance(parsing: "x.png@1,2+0000.png@3,4/0001.png@1,1+0002.png@2,2=1")),
                                                     model: model, markers: nil, images: images)) { error in
            XCTAssertTrue("\(error)".contains("x.png"), "\(error)")
        }
    }

    func testAmbiguousAndGrazingViewsAreLeftOut() throws {
        // Two boards' worth of marker 3: seen twice in every view, so never used.
        var board = try SyntheticMarkerBoard.ring()
        board.markers[7].id = 3
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [620, 620, 320, 240])
        let (model, images) = try capture(board, poses: SyntheticMarkerBoard.orbit(count: 4, distance: 0.55, elevationDeg: 50),
                                          camera: camera)
        let spec = try MarkerSpec(dictionary: board.dictionary, sizeMetres: 0.05)
        let scaling = try MarkerScaling.measure([model], images: images, spec: spec, options: MarkerScale.Options(), threads: 1)
        XCTAssertEqual(scaling.ambiguous, 4)
        XCTAssertFalse(scaling.markers.contains { $0.id == 3 })
        XCTAssertEqual(scaling.markers.count, 6)
        XCTAssertEqual(try XCTUnwrap(scaling.factor) / truth, 1, accuracy: 0.001)

        // Seen within 40 degrees of the board's plane, every view is grazing at a 30 degree limit.
        var options = MarkerScale.Options()
        options.maxViewAngleDegrees = 30
        let grazing = try MarkerScaling.measure([model], images: images, spec: spec, options: options, threads: 1)
        XCTAssertNil(grazing.factor)
        XCTAssertTrue(grazing.note?.contains("0 located") == true, grazing.note ?? "")
    }

    func testMarkerArguments() throws {
        let spec = try MarkerSpec(parsing: "4x4_50:0.05")
        XCTAssertEqual(spec.dictionary.name, "DICT_4X4_50")
        XCTAssertEqual(spec.size(of: 7), 0.05)
        XCTAssertEqual(try MarkerSpec(parsing: "DICT_APRILTAG_36h11:0.1").dictionary.name, "DICT_APRILTAG_36h11")
        for bad in ["DICT_4X4_50", "DICT_4X4_50:-0.05", "DICT_4X4_50:0", "DICT_4X4_50:abc", "DICT_9X9_50:0.05", "DICT_4X4_50:nan",
                    "DICT_4X4_50:500"] {
            XCTAssertThrowsError(try MarkerSpec(parsing: bad), bad)
        }
        XCTAssertThrowsError(try spec.checkID(50)) { XCTAssertTrue("\($0)".contains("ids 0 to 49"), "\($0)") }

        XCTAssertEqual(try KnownDistance(parsing: "3,7=0.5"), KnownDistance(from: .marker(3), to: .marker(7), metres: 0.5))
        let picked = try KnownDistance(parsing: "left/a+b.jpg@412,300+c@d.jpg@380.5,310/a.jpg@600,305+b.jpg@1e2,320=0.25")
        guard case .picked(let first) = picked.from, case .picked(let second) = picked.to else { return XCTFail("picked points") }
        XCTAssertEqual(first.map(\.image), ["left/a+b.jpg", "c@d.jpg"])
        XCTAssertEqual(first[1].pixel, SIMD2(381, 310.5))
        XCTAssertEqual(second.map(\.image), ["a.jpg", "b.jpg"])
        XCTAssertEqual(second[1].pixel, SIMD2(100.5, 320.5))
        XCTAssertEqual(picked.metres, 0.25)
        for bad in ["3,7", "3,7=-1", "3,7=0", "a.jpg@1,2/b.jpg@3,4=1", "a.jpg@1,2+b.jpg@3,4=1", "a.jpg@1,2+a.jpg@3,4/b@1,1+c@2,2=1",
                    "a.jpg@1,2+b.jpg@3,4/c@1,1+d@2,2/e@1,1+f@1,1=1", "a.jpg@-1,2+b.jpg@3,4/c@1,1+d@2,2=1", "hello=1"] {
            XCTAssertThrowsError(try KnownDistance(parsing: bad), bad)
        }
        XCTAssertEqual(try UserScale.factor(parsing: "2.5"), .factor(2.5))
        for bad in ["0", "-1", "inf", "x", ""] { XCTAssertThrowsError(try UserScale.factor(parsing: bad), bad) }
    }

    func testMarkersFile() throws {
        let folder = try temporaryDirectory()
        let url = folder.appendingPathComponent("markers.json")
        func load(_ text: String) throws -> MarkerSpec {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return try MarkerSpec.load(url)
        }
        XCTAssertEqual(try load(#"{"dictionary": "DICT_4X4_50", "size_m": 0.05}"#).size(of: 3), 0.05)
        let perID = try load(#"{"dictionary": "6x6_250", "sizes_m": {"3": 0.1, "12": 0.02}}"#)
        XCTAssertEqual(perID.size(of: 3), 0.1)
        XCTAssertEqual(perID.size(of: 12), 0.02)
        XCTAssertNil(perID.size(of: 4), "a marker of no given size is not used")
        XCTAssertEqual(try load(#"{"dictionary": "DICT_4X4_50", "size_m": 0.05, "sizes_m": {"3": 0.1}}"#).size(of: 2), 0.05)
        for bad in ["", "[]", "{", #"{"size_m": 0.05}"#, #"{"dictionary": 4, "size_m": 0.05}"#, #"{"dictionary": "DICT_4X4_50"}"#,
                    #"{"dictionary": "DICT_4X4_50", "size_m": "0.05"}"#, #"{"dictionary": "DICT_4X4_50", "size_m": true}"#,
                    #"{"dictionary": "DICT_4X4_50", "size_m": -1}"#, #"{"dictionary": "NOPE", "size_m": 0.05}"#,
                    #"{"dictionary": "DICT_4X4_50", "size_m": 0.05, "extra": 1}"#,
                    #"{"dictionary": "DICT_4X4_50", "sizes_m": {"x": 0.1}}"#, #"{"dictionary": "DICT_4X4_50", "sizes_m": {"99": 0.1}}"#,
                    #"{"dictionary": "DICT_4X4_50", "sizes_m": {"03": 0.1}}"#, #"{"dictionary": "DICT_4X4_50", "sizes_m": [0.1]}"#] {
            XCTAssertThrowsError(try load(bad), bad) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(url.path), message)
                XCTAssertFalse(message.contains("\n"), message)
            }
        }
        // A folder by that name is not a description.
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        XCTAssertThrowsError(try MarkerSpec.load(url))
    }
}
