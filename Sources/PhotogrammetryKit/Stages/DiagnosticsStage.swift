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
                                                                                 poseCheck: poseCheckInput(scene, context)),
                                  report: &report)
        return report
    }

    /// What the pose check reads: the usable images in capture order, the verified pairs of the
    /// graph the largest model was built on (the finer-features graph when the model's images
    /// hold those features), their measured poses and how much of each the model explains.
    func poseCheckInput(_ scene: ReconstructionScene, _ context: StageContext) -> PoseCheck.Input? {
        let model = scene.model
        guard !model.registeredImageIDs.isEmpty else { return nil }
        let images = scene.usable.images
        // The model's image i + 1 is usable image i (SparseStage); the keypoints must be the graph's.
        func fits(_ features: [FeatureSet]) -> Bool {
            features.count == images.count && model.images.values.allSatisfy { image in
                let i = Int(image.id.rawValue) - 1
                return i >= 0 && i < images.count && images[i].name == image.name && features[i].count == image.points2D.count
            }
        }
        let graph: MatchGraph?
        if let finer = scene.finerFeatures, let matching = scene.finerMatching, fits(finer) {
            graph = matching.graph
        } else if let matching = scene.matching, fits(scene.features) {
            graph = matching.graph
        } else {
            graph = nil
        }
        let imageIDs = images.indices.map { i in model.images[ImageID(i + 1)].map(\.id) }
        let pairs = graph.map { PoseCheck.measuredPairs($0, model: model, imageIDs: imageIDs, threads: context.threads) } ?? []
        return PoseCheck.Input(order: images.map(\.name).sorted(), pairs: pairs, turntable: scene.turntable,
                               ordered: graph.map { MapperOptions().isSequence($0) } ?? false,
                               links: graph.map { PoseCheck.links($0, names: images.map(\.name)) } ?? [],
                               support: graph.map { PoseCheck.pairSupport($0, model: model, imageIDs: imageIDs) } ?? [])
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
