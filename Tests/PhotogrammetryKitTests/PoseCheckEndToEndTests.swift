import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A capture built to break the poses (Datasets/broken-halves-16: frames 0000-0007 show one
/// object on a turntable, 0008-0015 another): whatever registers, the report says "poses
/// unreliable" and why, never "good capture", and gives no coverage advice.
final class PoseCheckEndToEndTests: XCTestCase {
    static let capture = Repository.datasets.appendingPathComponent("broken-halves-16")

    func testTwoObjectsInOneCaptureArePosesUnreliableWithTheirParts() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-halves-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: output) }
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let report = try ReconstructionPipeline(input: Self.capture, output: output, options: options, progress: nil).run()
        let check = try XCTUnwrap(report.poseCheck)
        let parts = try XCTUnwrap(check.checks.first { $0.name == "parts" })
        XCTAssertFalse(parts.passed, parts.evidence)
        XCTAssertTrue(parts.evidence.hasPrefix("the frames show 2 parts that share no matches: frames 0000.jpg–0007.jpg (8) and "
                                               + "frames 0008.jpg–0015.jpg (8)"), parts.evidence)
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .unreliable)
        XCTAssertTrue(verdict.headline.hasPrefix("Poses unreliable: the frames show 2 parts"), verdict.headline)
        XCTAssertFalse(report.advice.contains { $0.hasPrefix("Coverage") || $0.hasPrefix("Elevation") || $0.hasPrefix("Good") },
                       "\(report.advice)")
        XCTAssertTrue(report.advice.first?.contains("One subject per capture") ?? false, "\(report.advice)")
    }
}
