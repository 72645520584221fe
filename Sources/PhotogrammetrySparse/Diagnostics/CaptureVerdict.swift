import Foundation
import PhotogrammetryCore

/// A one-line judgement of a capture from its report: good, or the problems it has, worst first.
///
/// Each problem is one of the three capture measures of the design (alignment ratio, azimuth
/// coverage, elevation spread) falling below its threshold; each implies a distinct fix, which
/// the report's advice spells out. Angular measures that are null (walkthroughs, too few cameras)
/// are not judged. A model that fails the pose check (``PoseCheck``) is "poses unreliable",
/// above every capture problem but a failed reconstruction: its coverage and elevation are
/// measured from poses that cannot be trusted, so they are not judged either.
public struct CaptureVerdict: Sendable, Equatable {
    /// How serious the worst problem is.
    public enum Level: String, Sendable {
        /// Nothing to fix in the capture.
        case good
        /// Usable, but another pass would make a better model (a narrow elevation spread).
        case fair
        /// A capture problem that costs the model (low alignment, an incomplete circle).
        case poor
        /// The poses fail the pose check: the model may be wrong however much registered.
        case unreliable
        /// Nothing, or almost nothing, registered.
        case failed
    }

    /// Alignment ratios below this are a capture problem (texture, blur, overlap). 0.9.
    public static let minAlignmentRatio = 0.9
    /// Azimuth coverage below this, in degrees, is an incomplete circle. 300.
    public static let minAzimuthCoverageDeg = 300.0
    /// Elevation spreads below this, in degrees, are a single ring. 15.
    public static let minElevationSpreadDeg = 15.0

    /// The worst problem's level, or `.good`.
    public var level: Level
    /// Each problem found, worst first, as one sentence with its number.
    public var problems: [String]

    /// The first problem, or "Good capture".
    public var headline: String { problems.first ?? "Good capture" }

    /// Judges `report` against the thresholds above.
    public init(_ report: Report) {
        var level = Level.good
        var problems: [String] = []
        func add(_ problem: String, _ problemLevel: Level) {
            problems.append(problem)
            if problemLevel.severity > level.severity { level = problemLevel }
        }
        let usable = ReportFormat.usableImages(report)
        if report.imagesRegistered < 2 {
            add(usable == 0 ? "No usable images" : "Reconstruction failed: \(ReportFormat.alignment(report))",
                .failed)
        } else if let check = report.poseCheck, !check.passed {
            add("Poses unreliable: \(check.reason ?? "the pose check failed")", .unreliable)
        }
        if report.imagesRegistered >= 2 && report.alignmentRatio < Self.minAlignmentRatio {
            add("Low alignment: \(ReportFormat.alignment(report))", .poor)
        }
        if report.poseCheck?.passed == false {
            self.level = level
            self.problems = problems
            return
        }
        if let coverage = report.azimuthCoverageDeg, coverage < Self.minAzimuthCoverageDeg {
            add("Incomplete circle: the cameras cover \(ReportFormat.degrees(coverage)) of azimuth", .poor)
        }
        if let spread = report.elevationSpreadDeg, spread < Self.minElevationSpreadDeg {
            add("Single ring: \(ReportFormat.degrees(spread)) between the lowest and highest camera", .fair)
        }
        self.level = level
        self.problems = problems
    }
}

extension CaptureVerdict.Level {
    fileprivate var severity: Int {
        switch self {
        case .good: 0
        case .fair: 1
        case .poor: 2
        case .unreliable: 3
        case .failed: 4
        }
    }
}
