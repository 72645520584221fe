import Foundation
import PhotogrammetryCore

/// Number formats shared by the terminal summary and the HTML page, so both say the same thing.
package enum ReportFormat {
    /// Images neither rejected at ingest nor unreadable: the denominator of the alignment ratio.
    static func usableImages(_ report: Report) -> Int {
        max(0, report.imagesTotal - report.rejectedImages.count)
    }

    /// "11 of 12 usable images registered (92%)".
    package static func alignment(_ report: Report) -> String {
        let usable = usableImages(report)
        return "\(report.imagesRegistered) of \(usable) usable image\(usable == 1 ? "" : "s") registered"
            + " (\(percent(report.alignmentRatio)))"
    }

    /// Where the dense cloud came from when the capture has sensor depth: "41% from the sensor
    /// depth of 58 views, the rest from the photographs"; nil without sensor depth.
    package static func sensorShare(_ report: Report) -> String? {
        guard let sensor = report.densePointsSensorDepth, let views = report.denseSensorDepthViews,
              let points = report.densePoints, points > 0 else { return nil }
        return "\(percent(Double(sensor) / Double(points))) from the sensor depth of \(views) view\(views == 1 ? "" : "s"), "
            + "the rest from the photographs"
    }

    /// The room's envelope the dense stage found: "a room's envelope 5.00 × 4.00 m, 2.60 m high",
    /// and for a room with corners walled off (an L) "…, its floor 18.80 m² with 1 corner walled
    /// off", and then what meshing closed of it where the views matched nothing, "…, 17.30 m² of it
    /// closed where the views matched nothing"; nil without one.
    package static func roomEnvelope(_ report: Report) -> String? {
        guard let room = report.denseRoomEnvelope else { return nil }
        let unit = report.lengthUnit == .metres ? " m" : " units"
        var text = "a room's envelope \(fixed(room.length, 2)) × \(fixed(room.width, 2))\(unit), \(fixed(room.height, 2))\(unit) high"
        if room.notches > 0 {
            text += ", its floor \(fixed(room.floorArea, 2))\(unit)² with \(room.notches) corner\(room.notches == 1 ? "" : "s") walled off"
        }
        if let closed = room.closedArea, closed > 0 {
            text += ", \(fixed(closed, 2))\(unit)² of it closed where the views matched nothing"
        }
        return text
    }

    /// A ratio as a whole percentage, "92%".
    package static func percent(_ ratio: Double) -> String {
        ratio.isFinite ? "\(Int((ratio * 100).rounded()))%" : "–"
    }

    /// An angle in whole degrees, "342°".
    package static func degrees(_ value: Double) -> String {
        value.isFinite ? "\(Int(value.rounded()))°" : "–"
    }

    /// "0.21 px per point, as COLMAP": the mean reprojection error as COLMAP averages it, beside
    /// ours over observations; nil when the report has none (older reports).
    package static func perPointError(_ report: Report) -> String? {
        report.meanReprojectionErrorPerPointPx.map { "\(fixed($0, 2)) px per point, as COLMAP" }
    }

    /// A value with a fixed number of decimals, "0.53".
    package static func fixed(_ value: Double, _ digits: Int) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "–"
    }

    /// A count with thousands separators, "12,345", the same in every locale.
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    /// Seconds as "0.4 s", "42 s" or "3 min 05 s".
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "–" }
        if seconds < 10 { return "\(fixed(seconds, 1)) s" }
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        let whole = Int(seconds.rounded())
        return "\(whole / 60) min " + String(format: "%02d s", whole % 60)
    }

    /// What the run's sizes are in: "metres, from the depth images" (or the pose priors, or the
    /// source ``Report/scaleSource`` names), else that the scale is unknown and why.
    package static func units(_ report: Report) -> String {
        guard report.lengthUnit == .metres else {
            return "unknown: sizes are in arbitrary units (no depth images, pose priors, markers or --scale)"
        }
        switch report.scaleSource {
        case "lidar_depth"?: return "metres, from the depth images"
        case "pose_priors"?: return "metres, from the pose priors"
        case "markers"?: return "metres, from \(report.metricScaleMarkers.map { "\($0) " } ?? "")printed markers"
        case "user"?: return "metres, from the scale given (--scale)"
        case "known_distance"?: return "metres, from the distance given (--known-distance)"
        case let source?: return "metres, from \(source.replacingOccurrences(of: "_", with: " "))"
        case nil: return "metres"
        }
    }

    /// The capture kind as the report spells it ("orbit", "turntable", ...), or "unknown kind".
    package static func kind(_ report: Report) -> String {
        report.captureKind ?? "unknown kind"
    }
}
