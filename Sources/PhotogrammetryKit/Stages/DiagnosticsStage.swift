import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 11: what the models hold (the largest one's statistics, every model and every image
/// in the report), capture kind, azimuth coverage, elevation spread, coverage dial and advice.
///
/// Not checkpointed: a pure function of the sparse models (which are), done in milliseconds.
public struct DiagnosticsStage: ReconstructionStage {
    public struct Options: StageOptions {
        /// The room is the subject (a walk-through). Default false.
        public var room = false

        public init() {}

        public var keyText: String { "room=\(room)" }
        public func validate() throws {}
    }

    public static let name = "diagnostics"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The report with the diagnosis filled in.
    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Report {
        var report = scene.describingModels(scene.report)
        CaptureDiagnosis.diagnose(scene.model, context: CaptureDiagnosis.Context(room: options.room, turntable: scene.turntable,
                                                                                 poseCheck: scene.poseCheckInput(threads: context.threads)),
                                  report: &report)
        return report
    }

    public func apply(_ output: Report, to scene: ReconstructionScene, _ context: StageContext) throws {
        scene.report = output
        announce(output, context)
    }

    /// One event per capture problem the diagnosis found, with the thresholds of
    /// ``CaptureVerdict`` (the report's advice says how to fix each), after one when the images
    /// make more than one model.
    func announce(_ report: Report, _ context: StageContext) {
        let progress = context.progress
        if report.models.count > 1 {
            let sizes = report.models.map { "\($0.images) (\($0.folder))" }.joined(separator: ", ")
            progress?.event(.severalModels, "\(report.models.count) models, images: \(sizes)")
        }
        if let check = report.poseCheck, !check.passed {
            progress?.event(.posesUnreliable, "poses unreliable: \(check.reason ?? "the pose check failed")")
        }
        if report.imagesRegistered >= 2 && report.alignmentRatio < CaptureVerdict.minAlignmentRatio {
            progress?.event(.lowAlignment, "low alignment: \(ReportFormat.alignment(report))")
        }
        if let coverage = report.azimuthCoverageDeg, coverage < CaptureVerdict.minAzimuthCoverageDeg {
            progress?.event(.incompleteCircle, "incomplete circle: the cameras cover \(ReportFormat.degrees(coverage)) of azimuth")
        }
        if let spread = report.elevationSpreadDeg, spread < CaptureVerdict.minElevationSpreadDeg {
            progress?.event(.singleRing, "single ring: \(ReportFormat.degrees(spread)) between the lowest and highest camera")
        }
        if let texture = report.texture, texture.verdict == "low" {
            progress?.event(.lowTexture, "low texture: median \(texture.medianFeatures) features per frame at the default "
                            + "contrast, a frame needs about \(texture.workingFeatures)")
        }
        if report.azimuthCoverageDeg == nil && report.elevationSpreadDeg == nil {
            progress?.event(.anglesNotReported, "angles not reported: \(report.angularMeasuresNote ?? "no measure available")")
        }
    }
}
