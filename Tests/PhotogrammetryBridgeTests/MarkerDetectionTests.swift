import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// Marker detection on rendered views of a board at known poses: every marker in view is found
/// with its id, and its corners land on the projections of the true corners, in the printed order.
final class MarkerDetectionTests: XCTestCase {
    func testDictionaryNames() throws {
        XCTAssertEqual(try MarkerDictionary(name: "DICT_4X4_50").name, "DICT_4X4_50")
        XCTAssertEqual(try MarkerDictionary(name: "4x4_50").name, "DICT_4X4_50")
        XCTAssertEqual(try MarkerDictionary(name: "dict_apriltag_36h11").name, "DICT_APRILTAG_36h11")
        XCTAssertEqual(try MarkerDictionary(name: "DICT_4X4_50").markerCount, 50)
        XCTAssertEqual(try MarkerDictionary(name: "APRILTAG_36h11").markerCount, 587)
        XCTAssertEqual(MarkerDictionary.all.count, 21)
        XCTAssertThrowsError(try MarkerDictionary(name: "DICT_9X9_50")) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("DICT_9X9_50"), "\(error)")
        }
        XCTAssertThrowsError(try MarkerDetector.draw(try MarkerDictionary(name: "DICT_4X4_50"), id: 50, side: 60))
    }

    func testCornersLandOnTheTrueCornersInPrintedOrder() throws {
        let board = try SyntheticMarkerBoard.ring()
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [620, 620, 320, 240])
        var worst = 0.0, found = 0
        for pose in SyntheticMarkerBoard.orbit(count: 4, distance: 0.55, elevationDeg: 55) {
            let pixels = board.render(camera, camFromWorld: pose)
            let markers = try MarkerDetector.detect(gray: pixels, width: camera.width, height: camera.height, dictionary: board.dictionary)
            XCTAssertEqual(Set(markers.map(\.id)), Set(0..<8), "every marker in view")
            for marker in markers {
                let truth = try camera.project(points: board.corners(of: marker.id).map { pose.apply($0) })
                for (corner, expected) in zip(marker.corners, truth) {
                    worst = max(worst, length(SIMD3(corner - expected, 0)))
                }
                found += 1
            }
        }
        XCTAssertEqual(found, 32)
        // Sub-pixel corners of antialiased edges: within a few tenths of a pixel.
        XCTAssertLessThan(worst, 0.35)
    }

    func testNoMarkersInAPlainImage() throws {
        let pixels = [UInt8](repeating: 128, count: 200 * 100)
        XCTAssertEqual(try MarkerDetector.detect(gray: pixels, width: 200, height: 100,
                                                 dictionary: try MarkerDictionary(name: "DICT_6X6_250")).count, 0)
    }
}
