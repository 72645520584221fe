import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Captures built to break the poses: two objects in one turntable capture. Whatever registers,
/// the report never says "good capture"; where the two parts show, it says "poses unreliable"
/// with them and gives no coverage advice.
final class PoseCheckEndToEndTests: XCTestCase {
    func reconstruct(_ name: String) throws -> Report {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-halves-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: output) }
        var options = ReconstructionOptions()
        options.sparseOnly = true
        return try ReconstructionPipeline(input: Repository.datasets.appendingPathComponent(name), output: output,
                                          options: options, progress: nil).run()
    }

    func assertNeverGoodNorCoverage(_ report: Report, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue([.unreliable, .failed].contains(CaptureVerdict(report).level), CaptureVerdict(report).headline,
                      file: file, line: line)
        XCTAssertFalse(report.advice.contains { $0.hasPrefix("Coverage") || $0.hasPrefix("Elevation") || $0.hasPrefix("Good") },
                       "\(report.advice)", file: file, line: line)
    }

    /// Datasets/broken-halves-seam-12: six frames of one object, six of another, each half well
    /// connected inside: the two parts are the reason, with their frames.
    func testTwoObjectsInOneCaptureArePosesUnreliableWithTheirParts() throws {
        let report = try reconstruct("broken-halves-seam-12")
        let check = try XCTUnwrap(report.poseCheck)
        let parts = try XCTUnwrap(check.checks.first { $0.name == "parts" })
        XCTAssertFalse(parts.passed, parts.evidence)
        XCTAssertTrue(parts.evidence.hasPrefix("the frames show 2 parts that share no matches: frames 0018.jpg–0023.jpg (6) and "
                                               + "frames 0024.jpg–0029.jpg (6)"), parts.evidence)
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .unreliable)
        XCTAssertTrue(verdict.headline.hasPrefix("Poses unreliable: the frames show 2 parts"), verdict.headline)
        XCTAssertTrue(report.advice.first?.contains("One subject per capture") ?? false, "\(report.advice)")
        XCTAssertEqual(report.advice.count, 1, "no texture or overlap advice for the other object's frames: \(report.advice)")
        assertNeverGoodNorCoverage(report)
    }

    /// Datasets/broken-halves-16 (22.5° a frame at 320x240): the second object's frames barely
    /// match one another, so there is no second part to show. Under the automatic masks the first
    /// object's eight frames make a right model of half a turn and the other eight do not align:
    /// never a good capture, and the first thing said is that half the frames did not align.
    func testTheSixteenFrameHalvesAreNeverAGoodCapture() throws {
        let report = try reconstruct("broken-halves-16")
        XCTAssertTrue([.poor, .unreliable, .failed].contains(CaptureVerdict(report).level), CaptureVerdict(report).headline)
        XCTAssertTrue(report.advice.first.map { $0.hasPrefix("Low alignment") || $0.hasPrefix("Poses unreliable") } ?? false,
                      "\(report.advice)")
        XCTAssertFalse(report.advice.contains { $0.hasPrefix("Good") }, "\(report.advice)")
    }
}
