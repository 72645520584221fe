import Foundation
import PhotogrammetryCore

/// A short plain-text summary of a report for the terminal, in the words of the HTML page.
public enum ReportSummary {
    /// Rejected frames named one by one before the rest are only counted.
    static let rejectedNamesShown = 5

    /// The verdict, then one labelled line per measure, then the advice; no trailing newline.
    ///
    /// Lines: the verdict headline (and any further problems), capture kind and where "up" came
    /// from, alignment, azimuth coverage and elevation spread (or why they are not reported),
    /// reprojection error and points, the metric scale (when depth images gave one, or failed to),
    /// dense points (when the dense stage ran), static features
    /// discarded (when any), rejected frames
    /// (when any), and the advice as a bulleted list.
    public static func text(_ report: Report) -> String {
        let verdict = CaptureVerdict(report)
        var lines = [verdict.headline]
        for problem in verdict.problems.dropFirst() {
            lines.append(row("also", problem))
        }
        var kind = ReportFormat.kind(report)
        if let upSource = report.upSource { kind += " (up from \(upSource))" }
        lines.append(row("kind", kind))
        lines.append(row("alignment", ReportFormat.alignment(report)))
        if report.azimuthCoverageDeg == nil && report.elevationSpreadDeg == nil {
            lines.append(row("angles", "not reported: \(report.angularMeasuresNote ?? "no measure available")"))
        } else {
            lines.append(row("coverage", report.azimuthCoverageDeg.map { "\(ReportFormat.degrees($0)) of azimuth" }
                ?? "not reported"))
            lines.append(row("spread", report.elevationSpreadDeg.map { "\(ReportFormat.degrees($0)) of elevation" }
                ?? "not reported"))
        }
        if report.imagesRegistered > 0 {
            lines.append(row("accuracy", "\(ReportFormat.fixed(report.meanReprojectionErrorPx, 2)) px mean "
                + "reprojection error per observation\(ReportFormat.perPointError(report).map { " (\($0))" } ?? ""), "
                + "\(ReportFormat.count(report.points3D)) points"))
        }
        if let factor = report.metricScale, report.scaleSource == "pose_priors" {
            lines.append(row("scale", "metres, in the pose priors' frame: \(String(format: "%.6g", factor)) m per SfM unit, "
                + "\(ReportFormat.count(report.metricScalePoints ?? 0)) cameras' distances agree within "
                + "\(ReportFormat.fixed(100 * (report.metricScaleSpread ?? 0), 1)) %"))
        } else if let factor = report.metricScale, report.scaleSource == "markers" {
            lines.append(row("scale", "metres, from printed markers: \(String(format: "%.6g", factor)) m per SfM unit, "
                + "\(ReportFormat.count(report.metricScaleMarkers ?? 0)) markers agree within "
                + "\(ReportFormat.fixed(100 * (report.metricScaleSpread ?? 0), 1)) %"))
        } else if let factor = report.metricScale, report.scaleSource == "user" || report.scaleSource == "known_distance" {
            lines.append(row("scale", "metres, " + (report.scaleSource == "user" ? "as --scale gives it" : "from the known distance")
                + ": \(String(format: "%.6g", factor)) m per SfM unit"))
        } else if let factor = report.metricScale {
            lines.append(row("scale", "metres, from depth images: \(String(format: "%.6g", factor)) m per SfM unit, "
                + "\(ReportFormat.count(report.metricScalePoints ?? 0)) points agree within "
                + "\(ReportFormat.fixed(100 * (report.metricScaleSpread ?? 0), 1)) %"))
        } else if let note = report.metricScaleNote {
            lines.append(row("scale", "none: \(note)"))
        } else {
            lines.append(row("scale", ReportFormat.units(report)))
        }
        if let points = report.densePoints {
            lines.append(row("dense", "\(ReportFormat.count(points)) points (\(report.detail) detail"
                + (ReportFormat.sensorShare(report).map { "; \($0)" } ?? "")
                + (ReportFormat.roomEnvelope(report).map { "; \($0)" } ?? "") + ")"))
        }
        if let texture = report.texture, texture.verdict == "low" {
            lines.append(row("texture", "low: median \(ReportFormat.count(texture.medianFeatures)) features per frame at the "
                + "default contrast, a frame needs about \(ReportFormat.count(texture.workingFeatures))"))
        }
        if report.staticFeaturesDiscarded > 0 {
            lines.append(row("static", "\(ReportFormat.count(report.staticFeaturesDiscarded)) "
                + "background features discarded"))
        }
        if !report.rejectedImages.isEmpty {
            lines.append(row("rejected", rejected(report.rejectedImages)))
        }
        if !report.advice.isEmpty {
            lines.append("Advice:")
            lines += report.advice.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// "  label       value", labels padded to one column.
    private static func row(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 11, withPad: " ", startingAt: 0) + " " + value
    }

    /// "3 frames: a.jpg: blurry; b.jpg: unreadable; … and 1 more".
    private static func rejected(_ images: [RejectedImage]) -> String {
        let named = images.prefix(rejectedNamesShown).map { "\($0.name.escapingControlCharacters): \($0.reason)" }
        let rest = images.count - named.count
        return "\(images.count) frame\(images.count == 1 ? "" : "s"): " + named.joined(separator: "; ")
            + (rest > 0 ? "; … and \(rest) more" : "")
    }
}
