import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 12: the models in metres when the views carry depth images (a `depth/` folder of
/// millimetre PNGs, or HEIC depth items): each model multiplied by its ``MetricScale`` factor,
/// so the model files and everything after them are in metres; without depth the models keep
/// SfM's scale.
///
/// A model in the pose priors' frame is in their units, metres as the phone tracked them;
/// depth images measure metres in every view, where the tracking's scale drifts along a walk
/// (ARKit's: a per cent or two), so depth, when the views have it, sets the scale there too. The
/// model is scaled about the priors' origin, keeping their axes: the tracking's origin is where
/// it started, and its scale error grows from there.
public struct MetricScaleStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// How the metric scale is measured from depth images (``MetricScale/Options``' defaults).
        public var metricScale = MetricScale.Options()

        public init() {}

        public var keyText: String { "scale=\(StageKey.describe(metricScale))" }
        public func validate() throws { try metricScale.validate() }
    }

    /// The models' factors; nil when no registered view has a depth image.
    public struct Output: Codable {
        public var scaling: MetricScaling?
    }

    public static let name = "metric-scale"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        Output(scaling: MetricScaling.measure(scene.models, images: scene.usable.images, depth: scene.depth,
                                              options: options.metricScale, threads: context.threads))
    }

    /// The depth PNGs' contents: a depth folder added to a finished run reruns this stage and
    /// those after it.
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String {
        scene.depth.digest(of: scene.usable.images, threads: context.threads)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let alignment = scene.priorAlignments.first ?? nil
        if let alignment {
            Self.report(alignment, in: &scene.report)
            context.progress?.event(.metricScale, String(format: "metric scale: %.6g m per model unit from the pose priors of %d cameras "
                                                         + "(spread %.1f %%); the model is in the priors' frame",
                                                         alignment.scale, alignment.inliers, 100 * alignment.spread))
        }
        guard let scaling = output.scaling else { return }
        scene.models = scaling.apply(to: scene.models)
        // With priors, depth that gave no factor leaves the priors' metres, and the report saying so.
        let depthSetsScale = alignment == nil || scaling.factor != nil
        if depthSetsScale { Self.report(scaling, in: &scene.report) }
        if let alignment, let factor = scaling.factor {
            // Metres per SfM unit: the priors' scale corrected by the depth's.
            scene.report.metricScale = alignment.scale * factor
            scene.report.metricScaleNote = String(format: "in the pose priors' frame, scaled by the depth images: the "
                                                  + "priors' scale was %+.2f %% off", 100 * (1 / factor - 1))
        }
        announce(scaling, context, scaleEvent: depthSetsScale)
    }

    /// The scale's figures in the report: factor, source, spread; the diagnosis's camera plot in metres.
    static func report(_ scaling: MetricScaling, in report: inout Report) {
        report.scaleSource = scaling.source
        report.metricScaleNote = scaling.note
        guard let estimate = scaling.estimates.first ?? nil else { return }
        report.metricScale = estimate.factor
        report.metricScaleSpread = estimate.spread
        report.metricScalePoints = estimate.points
        for i in report.images.indices {
            report.images[i].centerTop = report.images[i].centerTop?.map { $0 * estimate.factor }
        }
    }

    /// The pose priors' scale in the report (the model is already in their frame and units).
    static func report(_ alignment: PriorAlignment, in report: inout Report) {
        report.scaleSource = "pose_priors"
        report.metricScale = alignment.scale
        report.metricScaleSpread = alignment.spread
        report.metricScalePoints = alignment.inliers
        report.metricScaleNote = nil
    }

    /// One event for the scale (or its absence; not with `scaleEvent` false, when the pose
    /// priors' event said it), one per depth image that could not be used.
    func announce(_ scaling: MetricScaling, _ context: StageContext, scaleEvent: Bool) {
        for image in scaling.unusable {
            context.progress?.event(.depthUnusable, "\(image.name): \(image.reason)", subject: image.name)
        }
        guard scaleEvent else { return }
        if let estimate = scaling.estimates.first ?? nil {
            let spread = String(format: "%.1f %%", estimate.spread * 100)
            context.progress?.event(.metricScale, "metric scale: \(String(format: "%.6g", estimate.factor)) m per model unit "
                                    + "from \(estimate.points) points in \(estimate.images) views with depth (spread \(spread), "
                                    + "\(estimate.outliers) outlier points); the model is in metres")
        } else {
            context.progress?.event(.metricScale, "no metric scale: \(scaling.note ?? "no depth")")
        }
    }
}
