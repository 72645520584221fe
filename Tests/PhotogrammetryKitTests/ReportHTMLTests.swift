import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class ReportHTMLTests: XCTestCase {
    private func occurrences(of needle: String, in page: String) -> Int {
        page.components(separatedBy: needle).count - 1
    }

    /// Checks that every non-void element opened is closed in order (a cheap well-formedness test).
    private func assertBalancedTags(_ page: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let void: Set<String> = ["meta", "img", "br", "hr", "link", "input"]
        var stack: [String] = []
        let tag = try Regex("<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>")
        for match in page.matches(of: tag) {
            let closing = !(match.output[1].substring?.isEmpty ?? true)
            let name = String(match.output[2].substring ?? "").lowercased()
            let selfClosing = !(match.output[3].substring?.isEmpty ?? true)
            if void.contains(name) || selfClosing { continue }
            if closing {
                XCTAssertEqual(stack.popLast(), name, "unbalanced </\(name)>", file: file, line: line)
            } else {
                stack.append(name)
            }
        }
        XCTAssertEqual(stack, [], file: file, line: line)
    }

    func testPageIsSelfContainedWithOnePlotEachAndOneRowPerImage() throws {
        let report = makeSampleReport()
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9])
        let thumbnails = Dictionary(uniqueKeysWithValues: report.images.prefix(10).map { ($0.name, jpeg) })
        let page = ReportHTML.render(report, thumbnails: thumbnails)
        XCTAssert(page.hasPrefix("<!DOCTYPE html>"))
        try assertBalancedTags(page)
        XCTAssertFalse(page.lowercased().contains("http"))
        XCTAssertFalse(page.lowercased().contains("<script"))
        XCTAssertFalse(page.contains("@import") || page.contains("@font-face"))
        XCTAssertEqual(occurrences(of: "<svg", in: page), 2)
        XCTAssertEqual(occurrences(of: "<svg class=\"top-view\"", in: page), 1)
        XCTAssertEqual(occurrences(of: "<svg class=\"coverage-dial\"", in: page), 1)
        XCTAssertEqual(occurrences(of: "class=\"sector", in: page), 32)
        XCTAssertEqual(occurrences(of: "<g class=\"camera\">", in: page), 9)
        XCTAssertEqual(occurrences(of: "<tr class=\"image ", in: page), report.images.count)
        XCTAssertEqual(occurrences(of: "<tr class=\"image st-registered\"", in: page), 9)
        XCTAssertEqual(occurrences(of: "<tr class=\"image st-rejected\"", in: page), 2)
        XCTAssertEqual(occurrences(of: "src=\"data:image/jpeg;base64,\(jpeg.base64EncodedString())\"", in: page), 10)
        // Only the blurry frame is below the floor.
        XCTAssertEqual(occurrences(of: "class=\"num low\"", in: page), 1)
    }

    func testReportTextIsEscapedEverywhere() {
        let page = ReportHTML.render(makeSampleReport(), thumbnails: [:])
        XCTAssertFalse(page.contains("<b>"))
        XCTAssertFalse(page.contains("Tom & Jerry"))
        // Table cell, and the camera's tooltip in the top view.
        XCTAssertGreaterThanOrEqual(occurrences(of: "&lt;b&gt;&quot;Tom &amp; Jerry&#39;s&quot;.jpg", in: page), 2)
        XCTAssert(page.contains("<li>Frames &lt;IMG_0010&gt; were blurry &amp; were dropped.</li>"))
        XCTAssertEqual(ReportHTML.escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;")
    }

    func testHeaderCarriesVerdictNumbersAndTimings() {
        let page = ReportHTML.render(makeSampleReport(), thumbnails: [:])
        XCTAssert(page.contains("<h1 class=\"verdict good\">Good capture</h1>"))
        XCTAssert(page.contains("9 of 10 usable images registered (90%)"))
        XCTAssert(page.contains("<dd>320°</dd>"))
        XCTAssert(page.contains("<dd>25°</dd>"))
        XCTAssert(page.contains("0.61 px"))
        XCTAssert(page.contains("12,345"))
        XCTAssert(page.contains("1 min 04 s"))
        XCTAssert(page.contains("<td>matching</td>"))
        XCTAssert(page.contains("<dt>Run time</dt><dd>1 min 24 s <span class=\"aside\">(slowest: sparse, 1 min 04 s)</span>"))
        XCTAssertFalse(page.contains("Static features discarded"))
        // 9 cameras in 9 distinct cells; the other 23 are missing, 13 of them in the lower ring.
        XCTAssert(page.contains("23 of 32 sectors missing</strong> (13 of 16 in the lower ring, 10 of 16 in the upper ring)"))
    }

    func testUnitsAreStatedPlainly() {
        var report = makeSampleReport()
        report.metricScale = nil
        report.scaleSource = "none"
        var page = ReportHTML.render(report, thumbnails: [:])
        XCTAssert(page.contains("<dt>Units</dt><dd>unknown: sizes are in arbitrary units (no depth images, pose priors, markers or --scale)</dd>"))
        report.metricScaleNote = "no depth image gave a factor"
        page = ReportHTML.render(report, thumbnails: [:])
        XCTAssert(page.contains("--scale) <span class=\"aside\">(no depth image gave a factor)</span></dd>"))
        report.metricScale = 0.004
        report.scaleSource = "lidar_depth"
        XCTAssert(ReportHTML.render(report, thumbnails: [:]).contains("<dt>Units</dt><dd>metres, from the depth images</dd>"))
        report.scaleSource = "pose_priors"
        XCTAssert(ReportHTML.render(report, thumbnails: [:]).contains("<dt>Units</dt><dd>metres, from the pose priors</dd>"))
        XCTAssertEqual(report.lengthUnit, .metres)
    }

    func testNullAngularMeasuresRenderTheNoteAndNoDial() {
        var report = makeSampleReport()
        report.captureKind = "walkthrough"
        report.azimuthCoverageDeg = nil
        report.elevationSpreadDeg = nil
        report.coverageSectors = nil
        report.angularMeasuresNote = "cameras look outward from inside the volume (a room) & angles mislead"
        let page = ReportHTML.render(report, thumbnails: [:])
        XCTAssert(page.contains("cameras look outward from inside the volume (a room) &amp; angles mislead"))
        XCTAssertEqual(occurrences(of: "<svg", in: page), 1)
        XCTAssertEqual(occurrences(of: "<svg class=\"top-view\"", in: page), 1)
        XCTAssert(page.contains("origin"))
        XCTAssert(page.contains("not reported"))
    }

    /// The top view's elevation bar names a range that reads as one: whole degrees when they
    /// differ, tenths when only those do, and one label when the cameras are all at one elevation;
    /// never "8° … 8°". Less than a degree apart, the cameras share one colour.
    func testTheElevationBarNeverReadsTheSameValueAtBothEnds() throws {
        func legend(_ elevations: (Int) -> Double) throws -> (labels: [String], colours: Set<String>) {
            var report = makeSampleReport()
            for index in report.images.indices where report.images[index].centerTop != nil {
                report.images[index].elevationDeg = elevations(index)
            }
            let page = ReportHTML.render(report, thumbnails: [:])
            let start = try XCTUnwrap(page.range(of: "id=\"elevation-scale\""))
            let bar = page[start.lowerBound...]
            let svg = String(bar[..<(bar.range(of: "</svg>")?.lowerBound ?? bar.endIndex)])
            let labels = svg.matches(of: try Regex(">([^<]*°)</text>")).map { String($0.output[1].substring ?? "") }
            let cameras = page.matches(of: try Regex("<circle cx=\"[^\"]*\" cy=\"[^\"]*\" r=\"4.5\" fill=\"([^\"]*)\""))
            return (labels, Set(cameras.map { String($0.output[1].substring ?? "") }))
        }
        let rings = try legend { 10 + 12.5 * Double($0 % 3) }
        XCTAssertEqual(rings.labels, ["10°", "35°"])
        XCTAssertEqual(rings.colours.count, 3, "three rings, three colours")
        let close = try legend { 7.6 + 0.1 * Double($0) }
        XCTAssertEqual(close.labels, ["7.6°", "8.4°"])
        XCTAssertEqual(close.colours.count, 1, "0.8° apart: one ring, one colour")
        let flat = try legend { 8.02 + 0.01 * Double($0 % 2) }
        XCTAssertEqual(flat.labels, ["all at 8°"])
        XCTAssertEqual(flat.colours.count, 1, "one elevation, one colour")
    }

    /// The blur floor is told as the one rule it is (a fraction of the capture's median) with
    /// the numbers it gave, and the mean reprojection error says what it averages over.
    func testTheBlurRuleAndTheReprojectionMeanSayWhatTheyAre() {
        var report = makeSampleReport()
        var page = ReportHTML.render(report, thumbnails: [:])
        XCTAssert(page.contains("Frames with a blur score below 0.3 × the capture's median were rejected as blurred "
                                + "(0.3 × 1.17 = 0.35)."), page)
        XCTAssertFalse(page.contains("relative to"))
        XCTAssert(page.contains("<dd>0.61 px <span class=\"aside\">(per observation; 0.57 px per point, as COLMAP)</span></dd>"))
        report.blurFloorFraction = nil
        report.meanReprojectionErrorPerPointPx = nil
        page = ReportHTML.render(report, thumbnails: [:])
        XCTAssert(page.contains("Frames with a blur score below 0.35 were rejected."))
        XCTAssert(page.contains("<dd>0.61 px <span class=\"aside\">(per observation)</span></dd>"))
    }

    func testMissingPositionsOmitTheTopViewGracefully() throws {
        var report = makeSampleReport()
        for index in report.images.indices {
            report.images[index].centerTop = nil
            report.images[index].directionTop = nil
        }
        report.images[0].centerTop = [.nan, 1]
        let page = ReportHTML.render(report, thumbnails: [:])
        try assertBalancedTags(page)
        XCTAssertEqual(occurrences(of: "<svg class=\"top-view\"", in: page), 0)
        XCTAssert(page.contains("No camera positions to show"))
        XCTAssertFalse(page.contains("nan"))
    }

    func testFailedRunWithoutImagesStillRenders() throws {
        var report = Report()
        report.imagesTotal = 3
        report.rejectedImages = [RejectedImage(name: "a.jpg", reason: "unreadable")]
        report.unregisteredImages = ["b.jpg", "c.jpg"]
        report.alignmentRatio = 0
        let page = ReportHTML.render(report, thumbnails: [:])
        try assertBalancedTags(page)
        XCTAssert(page.contains("<h1 class=\"verdict failed\">Reconstruction failed: 0 of 2 usable images registered (0%)</h1>"))
        XCTAssertEqual(occurrences(of: "<tr class=\"image ", in: page), 3)
        XCTAssertEqual(occurrences(of: "<svg", in: page), 0)
    }
}
