import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse
import PhotogrammetryDense

/// `report.html`: the report as one self-contained page for a person judging a capture.
///
/// The page holds everything inline — CSS, SVG plots, thumbnails as `data:` URIs, the 3D view's
/// scripts and scene — and loads nothing: no fonts, no links to the network. Sections, top to
/// bottom: the verdict and the numbers behind it, the advice, the pose check
/// (`ReportHTML+PoseCheck.swift`), a top view of the cameras and the coverage dial
/// (`ReportHTML+TopView.swift`, `ReportHTML+CoverageDial.swift`), the 3D view
/// (`ReportHTML+Viewer.swift`), the model's renders, the per-image table
/// (`ReportHTML+ImageTable.swift`) and the stage timings. Every text from the report is escaped.
public enum ReportHTML {
    /// The page for `report`, with `thumbnails` (JPEG bytes by image name) in the image table.
    ///
    /// - Parameters:
    ///   - report: The run's report.
    ///   - thumbnails: JPEG previews keyed by ``ReportImage/name``, e.g. from
    ///     ``Thumbnail/jpeg(of:maxSide:quality:)``; images without one show a dash.
    ///   - renders: the textured model's renders (``ModelRenders``), nil when there is no model.
    ///   - maskedThumbnails: a few frames with their automatic masks shown (image name, JPEG).
    ///   - viewer: what the interactive 3D view shows (``ViewerScene``), nil for no 3D view.
    ///   - viewerLibrary: the three.js scripts the 3D view runs on, or why there are none.
    /// - Returns: A complete HTML5 document.
    public static func render(_ report: Report, thumbnails: [String: Data], renders: ModelRenders? = nil,
                              maskedThumbnails: [(name: String, jpeg: Data)] = [], viewer: ViewerScene? = nil,
                              viewerLibrary: @autoclosure () -> Result<ViewerLibrary, ViewerLibrary.Missing> = ViewerLibrary.load()) -> String {
        let verdict = CaptureVerdict(report)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape("Capture report: \(verdict.headline)"))</title>
            <style>\(stylesheet)</style>
            </head>
            <body>
            <main>
            \(header(report, verdict))
            \(adviceSection(report))
            \(poseCheckSection(report))
            <section class="plots">
            \(topView(report))
            \(coverageDial(report))
            </section>
            \(viewer.map { viewerSection($0, library: viewerLibrary()) } ?? "")
            \(renders.map(modelSection) ?? "")
            \(automaticMasksSection(report, maskedThumbnails))
            \(imageTable(report, thumbnails: thumbnails))
            \(videoSection(report))
            \(stagesSection(report))
            <footer>Photogrammetry \(escape(report.version)) · detail \(escape(report.detail))</footer>
            </main>
            </body>
            </html>

            """
    }

    /// `text` with the five HTML-special characters replaced, safe in text and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The verdict line and a definition list of the capture's numbers.
    private static func header(_ report: Report, _ verdict: CaptureVerdict) -> String {
        var facts: [(String, String, Bool)] = []  // label, HTML value, flagged
        var kind = escape(ReportFormat.kind(report))
        if let upSource = report.upSource { kind += " <span class=\"aside\">(up from \(escape(upSource)))</span>" }
        facts.append(("Capture kind", kind, false))
        facts.append(("Alignment", escape(ReportFormat.alignment(report)),
                      report.alignmentRatio < CaptureVerdict.minAlignmentRatio))
        facts.append(angular("Azimuth coverage", report.azimuthCoverageDeg, below: CaptureVerdict.minAzimuthCoverageDeg))
        facts.append(angular("Elevation spread", report.elevationSpreadDeg, below: CaptureVerdict.minElevationSpreadDeg))
        let perPoint = ReportFormat.perPointError(report).map { "; " + escape($0) } ?? ""
        facts.append(("Mean reprojection error", report.imagesRegistered > 0
            ? "\(ReportFormat.fixed(report.meanReprojectionErrorPx, 2)) px "
                + "<span class=\"aside\">(per observation\(perPoint))</span>" : "–", false))
        facts.append(("3D points", "\(ReportFormat.count(report.points3D))"
            + (report.points3D > 0 ? " <span class=\"aside\">(mean track \(ReportFormat.fixed(report.meanTrackLength, 1)))</span>" : ""),
            false))
        if let texture = report.texture, texture.verdict == "low" {
            facts.append(("Texture", "\(ReportFormat.count(texture.medianFeatures)) features per frame (median, default contrast) "
                + "<span class=\"aside\">(a frame needs about \(ReportFormat.count(texture.workingFeatures)))</span>", true))
        }
        if let check = report.poseCheck {
            let frames = check.failingFrames.isEmpty ? ""
                : " <span class=\"aside\">(\(escape(CaptureAdvice.frames(check.failingFrames))))</span>"
            facts.append(("Pose check", check.passed ? "passed" : "failed" + frames, !check.passed))
        }
        if let masks = report.masks { facts.append(("Masks", escape(masks), false)) }
        if report.captureKind == "turntable" || report.staticFeaturesDiscarded > 0 {
            facts.append(("Static features discarded", ReportFormat.count(report.staticFeaturesDiscarded), false))
        }
        facts.append(("Images", "\(report.imagesTotal) total, \(report.rejectedImages.count) rejected, "
            + "\(report.unregisteredImages.count) unregistered", false))
        // Every size on the page and in the model files is in these units.
        var units = escape(ReportFormat.units(report))
        if report.lengthUnit == .unknown, let note = report.metricScaleNote {
            units += " <span class=\"aside\">(\(escape(note)))</span>"
        }
        facts.append(("Units", units, false))
        if let points = report.densePoints {
            facts.append(("Dense cloud", "\(ReportFormat.count(points)) points, \(escape(report.detail)) detail"
                + (ReportFormat.sensorShare(report).map { ", " + escape($0) } ?? "")
                + (ReportFormat.roomEnvelope(report).map { ", " + escape($0) } ?? ""), false))
        }
        if let triangles = report.triangles {
            facts.append(("Mesh", "\(ReportFormat.count(triangles)) triangles"
                + (report.textureSize.map { ", \($0)² texture" } ?? ""), false))
        }
        if !report.stages.isEmpty {
            let total = report.stages.reduce(0) { $0 + max(0, $1.seconds) }
            let slowest = report.stages.max { $0.seconds < $1.seconds }!
            facts.append(("Run time", "\(ReportFormat.duration(total)) <span class=\"aside\">(slowest: "
                + "\(escape(slowest.name)), \(ReportFormat.duration(slowest.seconds)))</span>", false))
        }
        let list = facts.map { label, value, flagged in
            "<div\(flagged ? " class=\"flag\"" : "")><dt>\(escape(label))</dt><dd>\(value)</dd></div>"
        }.joined(separator: "\n")
        var note = ""
        if report.azimuthCoverageDeg == nil || report.elevationSpreadDeg == nil {
            let why = report.angularMeasuresNote ?? "no angular measure was computed for this capture"
            note = "<p class=\"note\">Angular measures not reported: \(escape(why))</p>"
        }
        let more = verdict.problems.dropFirst().map { "<li>\(escape($0))</li>" }.joined()
        return """
            <header>
            <h1 class="verdict \(verdict.level.rawValue)">\(escape(verdict.headline))</h1>
            \(more.isEmpty ? "" : "<ul class=\"problems\">\(more)</ul>")
            <dl class="facts">
            \(list)
            </dl>
            \(note)
            </header>
            """
    }

    /// A fact row for an angular measure: its value, flagged when below the threshold, or a dash.
    private static func angular(_ label: String, _ value: Double?, below threshold: Double) -> (String, String, Bool) {
        guard let value else { return (label, "not reported", false) }
        return (label, ReportFormat.degrees(value), value < threshold)
    }

    /// The advice, as a list a reader cannot miss.
    private static func adviceSection(_ report: Report) -> String {
        guard !report.advice.isEmpty else {
            return "<section class=\"advice none\"><h2>Advice</h2><p>Nothing to fix in this capture.</p></section>"
        }
        let items = report.advice.map { "<li>\(escape($0))</li>" }.joined(separator: "\n")
        return "<section class=\"advice\"><h2>Advice</h2>\n<ul>\n\(items)\n</ul>\n</section>"
    }

    /// Stage timings as a table with proportional bars.
    /// The model's four views, then photos beside renders from their cameras.
    static func modelSection(_ renders: ModelRenders) -> String {
        func img(_ data: Data, _ type: String, _ alt: String) -> String {
            "<img src=\"data:image/\(type);base64,\(data.base64EncodedString())\" alt=\"\(escape(alt))\">"
        }
        let views = renders.views.map { "<figure>\(img($0.png, "png", $0.name))<figcaption>\(escape($0.name))</figcaption></figure>" }
        let pairs = renders.pairs.map {
            "<figure class=\"pair\">\(img($0.photoJPEG, "jpeg", "photo " + $0.imageName))\(img($0.renderPNG, "png", "render " + $0.imageName))"
                + "<figcaption>\(escape($0.imageName)): photo, model</figcaption></figure>"
        }
        return """
            <section class="model"><h2>Model</h2>
            <p>Rendered with ambient light only (every surface shows its own colour, unlit), so a shadow is never mistaken for detail.</p>
            <div class="renders views">\(views.joined())</div>
            <div class="renders">\(pairs.joined())</div>
            </section>
            """
    }

    private static func stagesSection(_ report: Report) -> String {
        guard !report.stages.isEmpty else { return "" }
        let total = report.stages.reduce(0) { $0 + max(0, $1.seconds) }
        let rows = report.stages.map { stage in
            let share = total > 0 ? max(0, stage.seconds) / total * 100 : 0
            return "<tr><td>\(escape(stage.name))</td><td class=\"num\">\(ReportFormat.duration(stage.seconds))</td>"
                + "<td class=\"bar\"><span style=\"width:\(ReportFormat.fixed(share, 1))%\"></span></td></tr>"
        }.joined(separator: "\n")
        return """
            <section class="stages"><h2>Stage timings</h2>
            <table>
            \(rows)
            <tr class="total"><td>total</td><td class="num">\(ReportFormat.duration(total))</td><td></td></tr>
            </table>
            </section>
            """
    }
}
