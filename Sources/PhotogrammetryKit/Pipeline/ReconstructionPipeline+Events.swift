import Foundation

/// The events a run sends besides those of single stages: its failure, and the diagnosis.
extension ReconstructionPipeline {
    /// Runs `body` with `name` as the running stage, which a failure inside is reported against.
    func within<T>(_ name: String, _ body: () throws -> T) throws -> T {
        runningStage = name
        let result = try body()
        runningStage = nil
        return result
    }

    /// Runs `body`; when it throws, tells the progress sink (too few images, or the stage that
    /// failed and why) and throws the same error, so a program reading the JSON lines learns of
    /// the failure from them too, not only from standard error.
    func announcingFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if case PipelineError.tooFewImages = error {
                progress?.event(.tooFewImages, "\(error)")
            } else {
                let stage = runningStage ?? "setup"
                progress?.event(.stageFailed, "\(stage) failed: \(error)", subject: stage)
            }
            runningStage = nil
            throw error
        }
    }

    /// One event per capture problem the diagnosis found, with the thresholds of
    /// ``CaptureVerdict`` (the report's advice says how to fix each).
    func announceDiagnosis() {
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
