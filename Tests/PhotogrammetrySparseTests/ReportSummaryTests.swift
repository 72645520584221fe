import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The terminal summary and the verdict it opens with.
final class ReportSummaryTests: XCTestCase {
    func testGoodOrbitSummary() {
        let lines = ReportSummary.text(makeSampleReport()).components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "Good capture")
        XCTAssert(lines.contains("  kind        orbit (up from camera up vectors)"))
        XCTAssert(lines.contains("  alignment   9 of 10 usable images registered (90%)"))
        XCTAssert(lines.contains("  coverage    320° of azimuth"))
        XCTAssert(lines.contains("  spread      25° of elevation"))
        XCTAssert(lines.contains("  accuracy    0.61 px mean reprojection error per observation (0.57 px per point, as COLMAP), "
                                 + "12,345 points"), lines.joined(separator: "\n"))
        XCTAssert(lines.contains(
            "  rejected    2 frames: IMG_0010.jpg: blurry (0.2 < floor 0.35); IMG_0011.heic: unreadable"))
        XCTAssertFalse(lines.contains { $0.contains("static") })
        XCTAssertEqual(Array(lines.suffix(3)), [
            "Advice:", "  - Walk the rest of the circle: 40° from azimuth 320° is missing.",
            "  - Frames <IMG_0010> were blurry & were dropped.",
        ])
        XCTAssertFalse(ReportSummary.text(makeSampleReport()).hasSuffix("\n"))
    }

    func testTheScaleLineSaysWhenSizesAreInArbitraryUnits() {
        var report = makeSampleReport()
        report.metricScale = nil
        report.metricScaleNote = nil
        XCTAssert(ReportSummary.text(report).contains(
            "  scale       unknown: sizes are in arbitrary units (no depth images, pose priors, markers or --scale)"))
        report.metricScaleNote = "no depth"
        XCTAssert(ReportSummary.text(report).contains("  scale       none: no depth"))
    }

    func testNullAngularMeasuresGiveTheNote() {
        var report = makeSampleReport()
        report.captureKind = "walkthrough"
        report.azimuthCoverageDeg = nil
        report.elevationSpreadDeg = nil
        report.angularMeasuresNote = "cameras look outward from inside the volume"
        let text = ReportSummary.text(report)
        XCTAssert(text.contains("  angles      not reported: cameras look outward from inside the volume"))
        XCTAssertFalse(text.contains("coverage"))
        XCTAssertFalse(text.contains("spread"))
    }

    func testProblemsLeadAndManyRejectsAreCounted() {
        var report = makeSampleReport()
        report.imagesTotal = 20
        report.rejectedImages = (0..<8).map { RejectedImage(name: "r\($0).jpg", reason: "blurry") }
        report.imagesRegistered = 6
        report.alignmentRatio = 0.5
        report.elevationSpreadDeg = 4
        report.captureKind = "turntable"
        report.staticFeaturesDiscarded = 23_456
        report.advice = []
        let lines = ReportSummary.text(report).components(separatedBy: "\n")
        XCTAssertEqual(lines[0], "Low alignment: 6 of 12 usable images registered (50%)")
        XCTAssertEqual(lines[1], "  also        Single ring: 4° between the lowest and highest camera")
        XCTAssert(lines.contains("  static      23,456 background features discarded"))
        XCTAssert(lines.contains(
            "  rejected    8 frames: r0.jpg: blurry; r1.jpg: blurry; r2.jpg: blurry; r3.jpg: blurry; "
                + "r4.jpg: blurry; … and 3 more"))
        XCTAssertFalse(lines.contains("Advice:"))
    }

    func testVerdictThresholdsAndLevels() {
        var report = makeSampleReport()
        XCTAssertEqual(CaptureVerdict(report).level, .good)
        XCTAssertEqual(CaptureVerdict(report).headline, "Good capture")
        report.elevationSpreadDeg = 10
        XCTAssertEqual(CaptureVerdict(report).level, .fair)
        report.azimuthCoverageDeg = 180
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .poor)
        XCTAssertEqual(verdict.problems, [
            "Incomplete circle: the cameras cover 180° of azimuth",
            "Single ring: 10° between the lowest and highest camera",
        ])
        report.imagesRegistered = 1
        XCTAssertEqual(CaptureVerdict(report).level, .failed)
        var empty = Report()
        empty.imagesTotal = 2
        empty.rejectedImages = [RejectedImage(name: "a", reason: "x"), RejectedImage(name: "b", reason: "y")]
        XCTAssertEqual(CaptureVerdict(empty).headline, "No usable images")
        // A walkthrough is judged on alignment only.
        var room = makeSampleReport()
        room.azimuthCoverageDeg = nil
        room.elevationSpreadDeg = nil
        XCTAssertEqual(CaptureVerdict(room).level, .good)
    }

    func testNumberFormats() {
        XCTAssertEqual(ReportFormat.count(0), "0")
        XCTAssertEqual(ReportFormat.count(999), "999")
        XCTAssertEqual(ReportFormat.count(1_234_567), "1,234,567")
        XCTAssertEqual(ReportFormat.count(-1000), "-1,000")
        XCTAssertEqual(ReportFormat.duration(0.44), "0.4 s")
        XCTAssertEqual(ReportFormat.duration(42.4), "42 s")
        XCTAssertEqual(ReportFormat.duration(185), "3 min 05 s")
        XCTAssertEqual(ReportFormat.degrees(.nan), "–")
        XCTAssertEqual(ReportFormat.percent(0.923), "92%")
    }
}
