import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Turns a diagnosed report into advice: each failure with its own fix, naming the frames.
///
/// The failures are those of the design, each with a distinct cause and fix: frames that did not
/// align (blur → hold still or add light; no texture → add texture; no overlap → more photos
/// between neighbours), an incomplete circle (walk, or turn, the rest of it), and a single
/// height (add a ring above or below). Thresholds are ``CaptureVerdict``'s, so the page's verdict
/// and the advice agree.
public enum CaptureAdvice {
    /// A frame with fewer features than this fraction of the registered frames' median is
    /// called textureless rather than disconnected (besides the absolute working count). 0.3.
    static let lowTextureFraction = 0.3

    /// Advice lines for `report`, worst problem first; one "good capture" line when nothing fails.
    /// - Parameters:
    ///   - largestGapDeg: the missing azimuth arc (counter-clockwise from the first photo).
    ///   - meanElevationDeg: the cameras' mean elevation, to say which ring to add.
    public static func advise(_ report: Report, largestGapDeg: (start: Double, end: Double)?,
                              meanElevationDeg: Double?) -> [String] {
        var advice: [String] = []
        let blurred = report.images.filter { $0.status == "rejected" && ($0.reason ?? "").hasPrefix("blurred") }
        if !blurred.isEmpty {
            advice.append("Blur: \(frames(blurred.map(\.name))) \(blurred.count == 1 ? "was" : "were") too blurred to use "
                + "and left out; hold the phone still (or add light for a shorter exposure) and retake "
                + (blurred.count == 1 ? "it." : "them."))
        }
        if let check = report.poseCheck, !check.passed {
            // Coverage and elevation are measured from these poses: no advice from them. Frames
            // of another part did not align because they show something else, not for want of
            // texture or overlap.
            let split = check.checks.contains { $0.name == "parts" && !$0.passed }
            return [poseAdvice(check)] + advice + (split ? [] : alignmentAdvice(report))
        }
        advice += alignmentAdvice(report)
        if let coverage = report.azimuthCoverageDeg, coverage < CaptureVerdict.minAzimuthCoverageDeg {
            let turn = report.captureKind == "turntable" ? "turn the object through the rest of the circle"
                : "walk the rest of the circle"
            var line = String(format: "Coverage: the cameras cover %.0f° of the circle; %@", coverage, turn)
            if let gap = largestGapDeg {
                line += String(format: ": nothing from %.0f° to %.0f° (counter-clockwise from the first photo, seen from above)",
                               gap.start, gap.end)
            }
            if let sectors = report.coverageSectors {
                let empty = (0..<16).filter { s in sectors.allSatisfy { $0[s] == 0 } }.count
                line += ", \(empty) of 16 sectors empty"
            }
            advice.append(line + ".")
        }
        if let spread = report.elevationSpreadDeg, spread < CaptureVerdict.minElevationSpreadDeg {
            let ring = (meanElevationDeg ?? 0) > 40 ? "a lower ring, nearer the object's middle height"
                : "a higher ring looking down at about 30–45° (and a lower one if the underside matters)"
            advice.append(String(format: "Elevation: every camera is within %.0f° of one height; add %@.", spread, ring))
        }
        if advice.isEmpty {
            var line = "Good capture: \(report.imagesRegistered) of \(ReportFormat.usableImages(report)) frames aligned"
            if let coverage = report.azimuthCoverageDeg, let spread = report.elevationSpreadDeg {
                line += String(format: ", %.0f° of the circle covered, %.0f° of elevation", coverage, spread)
            }
            advice.append(line + "; nothing to fix.")
        }
        return advice
    }

    /// The pose check's line: what failed, and the fix.
    static func poseAdvice(_ check: PoseCheckSummary) -> String {
        "Poses unreliable: \(check.reason ?? "the pose check failed"). \(check.fix ?? "")"
            .trimmingCharacters(in: .whitespaces)
    }

    /// The fix for a surface without texture.
    static let textureFix = "texture the surface (a light dusting of spray or powder, markers or stickers, a patterned "
        + "turntable or mat under it), or scan it with a depth sensor"

    /// The diagnosis of a surface that gives too little, with its figures and the fix: "the surface
    /// lacks texture: N features per image … where a working capture has M …; texture the surface …".
    package static func textureDiagnosis(_ texture: TextureSummary) -> String {
        "the surface lacks texture: \(texture.figure); \(textureFix)"
    }

    /// Why frames did not align: too little texture, or too little overlap with the rest.
    ///
    /// A frame is plain when its features at the default contrast fall below the working count
    /// (absolute) or below ``lowTextureFraction`` of the registered frames' median (relative).
    /// When the median frame is plain (``TextureSummary/verdict`` "low"), the surface itself
    /// lacks texture: the advice says so with the figure, and asks for texture, not for more
    /// photos between frames that are already close.
    static func alignmentAdvice(_ report: Report) -> [String] {
        let unregistered = report.images.filter { $0.status == "unregistered" }
        guard !unregistered.isEmpty else { return [] }
        let texture = report.texture ?? TextureSummary.measure(report.images)
        let working = texture?.workingFeatures ?? SIFTOptions.workingFeatureCount
        let registeredFeatures = report.images.filter { $0.status == "registered" }.compactMap(\.textureFeatures).sorted()
        let typical = registeredFeatures.isEmpty ? 0 : registeredFeatures[registeredFeatures.count / 2]
        let plain = unregistered.filter { entry in
            let count = entry.textureFeatures ?? 0
            return count < working || Double(count) < lowTextureFraction * Double(typical)
        }
        let isolated = unregistered.filter { entry in !plain.contains { $0.name == entry.name } }
        let severity = report.alignmentRatio < CaptureVerdict.minAlignmentRatio
            ? String(format: "Low alignment (%.0f%%): ", 100 * report.alignmentRatio) : "Alignment: "
        var lines: [String] = []
        if let texture, texture.verdict == "low", !plain.isEmpty {
            lines.append(severity + textureDiagnosis(texture) + "; \(frames(plain.map(\.name))) did not "
                + "align, and more photos will not help.")
        } else if !plain.isEmpty {
            lines.append(severity + "\(frames(plain.map(\.name))) found too little texture (under \(working) features, "
                + "or under \(Int(lowTextureFraction * 100))% of the typical \(typical)); put a patterned mat or props near "
                + "plain surfaces, or add light.")
        }
        if !isolated.isEmpty {
            lines.append((plain.isEmpty ? severity : "Overlap: ") + "\(frames(isolated.map(\.name))) did not connect to the rest; "
                + "take more photos between them and their neighbours, each sharing about 70% of its view with the last.")
        }
        return lines
    }

    /// "frame a", "frames a, b and c", or the first few and a count.
    package static func frames(_ names: [String]) -> String {
        let shown = names.prefix(6)
        var text = names.count == 1 ? "frame " : "frames "
        if names.count > shown.count {
            text += shown.joined(separator: ", ") + " and \(names.count - shown.count) more"
        } else if names.count > 1 {
            text += shown.dropLast().joined(separator: ", ") + " and " + shown.last!
        } else {
            text += shown.first ?? ""
        }
        return text
    }
}
