import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The marker board's frame (`--marker-frame`) fitted to exact corners of a board placed at a
/// known pose: the fit maps every point back to its board coordinates.
final class MarkerFrameTests: XCTestCase {
    /// A marker of side `side` centred at `centre` on the board (y = 0), corner 0 to 1 along
    /// `edge` (a unit vector in the board's x-z plane).
    func marker(_ id: Int, _ centre: SIMD3<Double>, edge: SIMD3<Double>, side: Double = 0.05) -> [SIMD3<Double>] {
        let across = cross(edge, SIMD3(0, 1, 0))
        let h = side / 2
        return [centre - h * edge - h * across, centre + h * edge - h * across, centre + h * edge + h * across,
                centre - h * edge + h * across]
    }

    func testExactCornersGiveTheBoardsFrame() throws {
        // Board coordinates: the markers' centres average to the origin; the lowest id (3) has its
        // edge along +x, the others are turned so that any other marker would give another x.
        let board: [(id: Int, corners: [SIMD3<Double>])] = [
            (9, marker(9, SIMD3(-0.1, 0, -0.05), edge: SIMD3(0, 0, 1))),
            (3, marker(3, SIMD3(0.1, 0, -0.05), edge: SIMD3(1, 0, 0))),
            (5, marker(5, SIMD3(0, 0, 0.1), edge: normalize(SIMD3(1, 0, 1)))),
        ]
        let worldFromBoard = Similarity3(scale: 1, rotation: Rotation.matrix(angleAxis: SIMD3(0.4, -1.1, 0.7)),
                                         translation: SIMD3(2, -1, 0.5))
        let markers = board.map { MarkerScale.MeasuredMarker(id: $0.id, corners: $0.corners.map(worldFromBoard.apply), views: 3,
                                                             sizeMetres: 0.05) }
        // Three cameras above the board, one below (seen through a glass table, say): above wins.
        let cameras = [SIMD3(0.3, 0.5, 0.2), SIMD3(-0.4, 0.3, 0.1), SIMD3(0, 0.6, -0.3), SIMD3(0, -0.4, 0)].map(worldFromBoard.apply)
        let frame = try MarkerFrame.fit(markers, cameraCentres: cameras)
        XCTAssertEqual(frame.markers, 3)
        XCTAssertEqual(frame.axisMarkerID, 3)
        XCTAssertEqual(frame.planeRMS, 0, accuracy: 1e-12)
        XCTAssertEqual(frame.transform.scale, 1)
        for point in [SIMD3(0.0, 0, 0), SIMD3(0.2, 0.3, -0.1), SIMD3(-1, 2, 3)] {
            XCTAssertLessThan(length(frame.transform.apply(worldFromBoard.apply(point)) - point), 1e-12, "\(point)")
        }

        // Most cameras below: the other side is up, and +Z turns with it (right-handed).
        let below = cameras.map { 2 * worldFromBoard.translation - $0 }
        let flipped = try MarkerFrame.fit(markers, cameraCentres: below)
        let point = SIMD3(0.2, 0.3, -0.1)
        XCTAssertLessThan(length(flipped.transform.apply(worldFromBoard.apply(point)) - SIMD3(0.2, -0.3, 0.1)), 1e-12)
    }

    func testTooFewMarkersOrNoPlaneGiveNoFrame() {
        let one = [MarkerScale.MeasuredMarker(id: 0, corners: marker(0, .zero, edge: SIMD3(1, 0, 0)), views: 2, sizeMetres: 0.05)]
        XCTAssertThrowsError(try MarkerFrame.fit(one, cameraCentres: [SIMD3(0, 1, 0)])) { error in
            XCTAssertTrue("\(error)".contains("1 marker located"), "\(error)")
        }
        // Two markers on two faces of a box.
        var bent = one
        bent.append(MarkerScale.MeasuredMarker(id: 1, corners: marker(1, .zero, edge: SIMD3(1, 0, 0)).map { SIMD3($0.x, $0.z + 0.1, 0.1) },
                                               views: 2, sizeMetres: 0.05))
        XCTAssertThrowsError(try MarkerFrame.fit(bent, cameraCentres: [SIMD3(0, 1, 0)])) { error in
            XCTAssertTrue("\(error)".contains("off one plane"), "\(error)")
        }
    }
}
