import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 12: the models in metres, from the first of these that gives the largest model a
/// factor: the user's (`--scale`, `--known-distance`), printed markers of known size (`--markers`,
/// `markers.json`; ``MarkerScale``), the views' depth images (a `depth/` folder of millimetre
/// PNGs, or HEIC depth items; ``MetricScale``), the pose priors (stage 10 put the model in their
/// frame and units). Each model is multiplied by its factor, so the model files and everything
/// after them are in metres; without any source the models keep SfM's scale.
///
/// A model in the pose priors' frame is in their units, metres as the phone tracked them;
/// depth images and markers measure metres in the views, where the tracking's scale drifts along
/// a walk (ARKit's: a per cent or two), so they, when there are any, set the scale there too. The
/// model is scaled about the priors' origin, keeping their axes: the tracking's origin is where
/// it started, and its scale error grows from there.
public struct MetricScaleStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// How the metric scale is measured from depth images (``MetricScale/Options``' defaults).
        public var metricScale = MetricScale.Options()
        /// The printed markers given (`--markers`); nil: a `markers.json` beside the images, if any
        /// (ingest reads it; ``inputDigest(_:_:)`` keys on it). Default nil.
        public var markers: MarkerSpec?
        /// The scale the user states (`--scale`, `--known-distance`). Default nil.
        public var userScale: UserScale?
        /// How markers are found and measured (``MarkerScale/Options``' defaults).
        public var markerScale = MarkerScale.Options()

        public init() {}

        /// The depth options; the markers' and the user's only when given, so that a run without
        /// them keeps the key it had before they existed (and its checkpoints).
        public var keyText: String {
            var text = "scale=\(StageKey.describe(metricScale))"
            if markers != nil || userScale != nil {
                text += " markers=\(StageKey.describe(markers)) user=\(StageKey.describe(userScale)) "
                    + "marker_scale=\(StageKey.describe(markerScale))"
            }
            return text
        }

        public func validate() throws {
            try metricScale.validate()
            try markerScale.validate()
            if case .factor(let factor)? = userScale, !(factor.isFinite && factor > 0) {
                throw PipelineError.invalidOption("--scale \(factor): want a number above 0")
            }
        }
    }

    /// The models' factors from each source there is.
    public struct Output: Codable {
        /// From depth images; nil when no registered view has a depth image.
        public var scaling: MetricScaling?
        /// From printed markers; nil when the run has none.
        public var markers: MarkerScaling?
        /// The user's; nil without `--scale` or `--known-distance`.
        public var user: UserScaling?
    }

    public static let name = "metric-scale"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let depth = MetricScaling.measure(scene.models, images: scene.usable.images, depth: scene.depth,
                                          options: options.metricScale, threads: context.threads)
        let markers = try scene.markers.map {
            try MarkerScaling.measure(scene.models, images: scene.usable.images, spec: $0.spec, options: options.markerScale,
                                      threads: context.threads)
        }
        let user = try options.userScale.map {
            try UserScaling.measure($0, model: scene.model, markers: markers?.markers, images: scene.usable.images)
        }
        return Output(scaling: depth, markers: markers, user: user)
    }

    /// The depth PNGs' contents and a `markers.json`'s: a depth folder or a marker file added to
    /// a finished run reruns this stage and those after it.
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String {
        let depth = scene.depth.digest(of: scene.usable.images, threads: context.threads)
        guard let markers = scene.markers, markers.file != nil else { return depth }
        var hash = StableHash()
        hash.add(depth)
        hash.add("markers " + markers.digest + " " + StageKey.describe(options.markerScale))
        return hash.hex
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let alignment = scene.priorAlignments.first ?? nil
        // The markers follow the largest model's scale, whichever source set it.
        let located = output.markers?.markers ?? []
        var appliedFactor = 1.0
        defer { scene.boardMarkers = Self.scaled(located, by: appliedFactor) }
        if let user = output.user, let factor = user.factor, !scene.models.isEmpty {
            scene.models[0] = scene.models[0].scaled(by: factor)
            appliedFactor = factor
            Self.report(factor: factor, source: user.source, spread: nil, points: user.modelDistance.map { _ in 2 },
                        markers: user.scale.knownDistance.flatMap { $0.markerIDs.isEmpty ? nil : $0.markerIDs.count }, alignment: alignment, overriding: output,
                        in: &scene.report)
            context.progress?.event(.metricScale, "metric scale: \(String(format: "%.6g", factor)) m per model unit "
                                    + "\(user.summary); the model is in metres" + Self.frameNote(alignment, factor))
            announceUnused(output, context)
            return
        }
        if let user = output.user {
            context.progress?.event(.metricScale, "no metric scale from --known-distance: \(user.note ?? "-")")
        }
        if let markers = output.markers, let estimate = markers.estimates.first ?? nil {
            scene.models = markers.apply(to: scene.models)
            appliedFactor = estimate.factor
            Self.report(factor: estimate.factor, source: "markers", spread: estimate.spread, points: 4 * estimate.points,
                        markers: estimate.points, alignment: alignment, overriding: output, in: &scene.report)
            context.progress?.event(.metricScale, String(format: "metric scale: %.6g m per model unit from %d markers in %d views "
                                                         + "(spread %.1f %%, %d outlier markers); the model is in metres",
                                                         estimate.factor, estimate.points, estimate.images, 100 * estimate.spread,
                                                         estimate.outliers) + Self.frameNote(alignment, estimate.factor))
            announceUnused(output, context)
            return
        }
        if let markers = output.markers {
            context.progress?.event(.metricScale, "no metric scale from the markers: \(markers.note ?? "-")")
        }
        if let alignment {
            Self.report(alignment, in: &scene.report)
            context.progress?.event(.metricScale, String(format: "metric scale: %.6g m per model unit from the pose priors of %d cameras "
                                                         + "(spread %.1f %%); the model is in the priors' frame",
                                                         alignment.scale, alignment.inliers, 100 * alignment.spread))
        }
        guard let scaling = output.scaling else { return }
        scene.models = scaling.apply(to: scene.models)
        appliedFactor = (scaling.estimates.first ?? nil)?.factor ?? 1
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

    /// The scale's figures in the report for a factor from the user or the markers: the factor
    /// (times the priors' scale when the model is in their frame), its source and figures, a
    /// note naming the sources it took precedence over; the diagnosis's camera plot in metres.
    static func report(factor: Double, source: String, spread: Double?, points: Int?, markers: Int?, alignment: PriorAlignment?,
                       overriding output: Output, in report: inout Report) {
        report.scaleSource = source
        report.metricScale = (alignment?.scale ?? 1) * factor
        report.metricScaleSpread = spread
        report.metricScalePoints = points
        report.metricScaleMarkers = markers
        var notes: [String] = []
        if alignment != nil {
            notes.append("in the pose priors' frame, scaled by the " + (source == "markers" ? "markers" : "user's scale")
                         + String(format: ": the priors' scale was %+.2f %% off", 100 * (1 / factor - 1)))
        }
        var unused: [String] = []
        if source != "markers", output.markers?.factor != nil { unused.append("the markers'") }
        if output.scaling?.factor != nil { unused.append("the depth images'") }
        if alignment != nil { unused.append("the pose priors'") }
        if !unused.isEmpty {
            notes.append("\(CommandSpec.list(unused, "and")) scale not used (--scale or --known-distance, then markers, then depth "
                         + "images, then pose priors)")
        }
        report.metricScaleNote = notes.isEmpty ? nil : notes.joined(separator: "; ")
        for i in report.images.indices {
            report.images[i].centerTop = report.images[i].centerTop?.map { $0 * factor }
        }
    }

    /// `markers` with their corners times `factor`, as ``Reconstruction/scaled(by:)`` moves the model.
    static func scaled(_ markers: [MarkerScale.MeasuredMarker], by factor: Double) -> [MarkerScale.MeasuredMarker] {
        markers.map { marker in
            var marker = marker
            marker.corners = marker.corners.map { $0 * factor }
            return marker
        }
    }

    /// ", in the pose priors' frame" for the event when the model is in it.
    static func frameNote(_ alignment: PriorAlignment?, _ factor: Double) -> String {
        guard alignment != nil else { return "" }
        return String(format: ", in the pose priors' frame (their scale was %+.2f %% off)", 100 * (1 / factor - 1))
    }

    /// The depth images that could not be used, when another source set the scale.
    func announceUnused(_ output: Output, _ context: StageContext) {
        if let scaling = output.scaling { announce(scaling, context, scaleEvent: false) }
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
