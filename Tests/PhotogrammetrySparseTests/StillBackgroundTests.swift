import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The fixed-camera test for masked captures, on real frames: a turntable's background outside
/// its masks is the same picture in every frame, an orbit's is not.
final class StillBackgroundTests: XCTestCase {
    static let turntable = Repository.datasets.appendingPathComponent("turntable-temple-12")
    static let orbit = Repository.datasets.appendingPathComponent("templeRing-12")

    func testTurntableBackgroundOutsideItsMasksStandsStill() throws {
        let capture = try CaptureLoader.load(input: Self.turntable, workspace: FileManager.default.temporaryDirectory)
        let masks = MaskSource.directory(Self.turntable.appendingPathComponent("masks"))
        let result = try StillBackground.test(capture, masks: masks)
        XCTAssertTrue(result.isStill)
        XCTAssertGreaterThanOrEqual(result.conclusivePairs, 3, "the backdrop has texture to testify")
        XCTAssertLessThan(try XCTUnwrap(result.medianChange), 0.005)
    }

    func testOrbitBackgroundMoves() throws {
        // The camera circles the object: outside a central rectangle the temple's own sides and
        // base move from frame to frame.
        let capture = try CaptureLoader.load(input: Self.orbit, workspace: FileManager.default.temporaryDirectory)
        let first = try XCTUnwrap(capture.images.first)
        let masks = MaskSource.rectangle(x: Double(first.width) * 0.4, y: Double(first.height) * 0.4,
                                         width: Double(first.width) * 0.2, height: Double(first.height) * 0.2)
        let result = try StillBackground.test(capture, masks: masks)
        XCTAssertFalse(result.isStill)
        XCTAssertGreaterThanOrEqual(result.conclusivePairs, 3, "the temple's sides have texture")
        XCTAssertGreaterThan(try XCTUnwrap(result.medianChange), 0.02)
    }

    func testPairOfIdenticalFramesHasNoChange() throws {
        let capture = try CaptureLoader.load(input: Self.turntable, workspace: FileManager.default.temporaryDirectory)
        let image = try XCTUnwrap(capture.images.first)
        let (change, fraction) = try BackgroundChange.measure(image.url, maskA: nil, image.url, maskB: nil, keepRect: nil)
        XCTAssertEqual(change, 0)
        XCTAssertGreaterThan(fraction, 0.05)
    }

    func testUnreadableImageNamesTheFile() throws {
        let bogus = FileManager.default.temporaryDirectory.appendingPathComponent("pg-still-\(UUID().uuidString).jpg")
        try Data("not a jpeg".utf8).write(to: bogus)
        defer { try? FileManager.default.removeItem(at: bogus) }
        let capture = try CaptureLoader.load(input: Self.turntable, workspace: FileManager.default.temporaryDirectory)
        XCTAssertThrowsError(try BackgroundChange.measure(capture.images[0].url, maskA: nil, bogus, maskB: nil, keepRect: nil)) {
            XCTAssertTrue("\($0)".contains(bogus.lastPathComponent), "\($0)")
        }
    }
}
