import Foundation
import PhotogrammetryCore
import PhotogrammetryIO
import PhotogrammetrySparse

/// Stage 6: the models in metres when the views carry depth images, then every model as a COLMAP
/// text model (`sparse/`, `sparse-2/`, ...), published as a set, and the largest one's views as
/// nerfstudio's `transforms.json`.
///
/// Each model is written into a temporary folder beside its target and renamed over it, so
/// `sparse/` holds one whole model at every moment (an old one or the new one); models of an
/// earlier run beyond this run's count are removed. Written before the dense stage: a failure
/// there leaves the sparse model whole. When registered views have depth images (a `depth/`
/// folder of millimetre PNGs, or HEIC depth items), each model is first multiplied by its
/// ``MetricScale`` factor, so the model files and everything after them are in metres; without
/// depth the models keep SfM's scale. Each model is then stood upright
/// (``Reconstruction/uprightTransform(gravity:)``: +Y up, centred, the first photo's side on +Z),
/// as USD and ARKit take a model, except in the pose priors' frame, which is kept as given (its
/// scale corrected by the depth images when the views have them).
public struct ExportStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// How the metric scale is measured from depth images (``MetricScale/Options``' defaults).
        public var metricScale = MetricScale.Options()

        public init() {}

        public var keyText: String { "scale=\(StageKey.describe(metricScale))" }
        public func validate() throws { try metricScale.validate() }
    }

    /// The folders written, `sparse` first, and the metric scale found.
    public struct Output: Codable {
        public var folders: [String]
        /// The models' factors; nil when no registered view has a depth image.
        public var scaling: MetricScaling?
        /// Per model, the rigid motion that stood it upright after scaling (nil: left as it was;
        /// the whole list nil in a checkpoint from before models were stood upright).
        public var upright: [Similarity3?]?
    }

    public static let name = "export"
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let layout = context.layout
        // A model in the pose priors' frame is in their units, metres as the phone tracked them;
        // depth images measure metres in every view, where the tracking's scale drifts along a
        // walk (ARKit's: a per cent or two), so depth, when the views have it, sets the scale
        // there too. The model is scaled about the priors' origin, keeping their axes: the
        // tracking's origin is where it started, and its scale error grows from there.
        let scaling = MetricScaling.measure(scene.models, images: scene.usable.images, depth: scene.depth,
                                            options: options.metricScale, threads: context.threads)
        let scaled = scaling?.apply(to: scene.models) ?? scene.models
        let upright = Self.priorAlignment(scene) != nil ? scaled.map { _ in nil } : scaled.map { $0.uprightTransform() }
        let models = Self.stand(scaled, upright)
        for (n, model) in models.enumerated() {
            try Self.publish(layout.sparse(n)) { try model.writeColmapText(to: $0) }
        }
        for n in models.count... {
            let stale = layout.sparse(n)
            guard FileManager.default.fileExists(atPath: stale.path) else { break }
            try FileManager.default.removeItem(at: stale)
        }
        if let model = models.first {
            let prefix = Self.imageFolderPrefix(scene.capture)
            try writeAtomically(try NerfstudioTransforms(model, filePath: { prefix + $0 }).jsonData(), to: layout.transformsJSON)
        } else {
            try? FileManager.default.removeItem(at: layout.transformsJSON)
        }
        return Output(folders: models.indices.map(OutputLayout.sparseFolderName), scaling: scaling, upright: upright)
    }

    /// Each model moved by its upright motion, where it has one.
    static func stand(_ models: [Reconstruction], _ upright: [Similarity3?]?) -> [Reconstruction] {
        guard let upright else { return models }
        return models.enumerated().map { n, model in
            guard n < upright.count, let motion = upright[n] else { return model }
            return model.transformed(by: motion)
        }
    }

    /// The depth PNGs' contents: a depth folder added to a finished run reruns export and after.
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String {
        scene.depth.digest(of: scene.usable.images, threads: context.threads)
    }

    /// The image folder's path inside the capture with a trailing slash (`images/`), or "" when
    /// the images are at the capture's top.
    static func imageFolderPrefix(_ capture: Capture) -> String {
        let root = capture.root.standardizedFileURL.path, images = capture.imageRoot.standardizedFileURL.path
        guard images.hasPrefix(root + "/") else { return "" }
        return String(images.dropFirst(root.count + 1)) + "/"
    }

    /// A loaded output stands only while its folders still hold their models.
    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        for folder in output.folders {
            for file in ["cameras.txt", "images.txt", "points3D.txt"] {
                let url = context.layout.root.appendingPathComponent(folder).appendingPathComponent(file)
                guard FileManager.default.fileExists(atPath: url.path) else { throw PipelineError.io("\(url.path) is missing") }
            }
        }
        guard output.folders.count == scene.models.count,
              !FileManager.default.fileExists(atPath: context.layout.sparse(scene.models.count).path) else {
            throw PipelineError.io("the sparse folders are not this run's")
        }
        if !scene.models.isEmpty, !FileManager.default.fileExists(atPath: context.layout.transformsJSON.path) {
            throw PipelineError.io("\(context.layout.transformsJSON.path) is missing")
        }
        if let alignment = Self.priorAlignment(scene) {
            Self.report(alignment, in: &scene.report)
            context.progress?.event(.metricScale, String(format: "metric scale: %.6g m per model unit from the pose priors of %d cameras "
                                                         + "(spread %.1f %%); the model is in the priors' frame",
                                                         alignment.scale, alignment.inliers, 100 * alignment.spread))
        }
        if let scaling = output.scaling {
            scene.models = scaling.apply(to: scene.models)
            let alignment = Self.priorAlignment(scene)
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
        scene.models = Self.stand(scene.models, output.upright)
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

    /// The largest model's alignment to the pose priors, when it was put in their frame.
    static func priorAlignment(_ scene: ReconstructionScene) -> PriorAlignment? { scene.priorAlignments.first ?? nil }

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
    func announce(_ scaling: MetricScaling, _ context: StageContext, scaleEvent: Bool = true) {
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

    /// Writes a folder through `write` into `.NAME.PID.tmp` beside `folder`, then puts it in
    /// place with two renames (the old folder aside, the new one in); the old one is removed.
    static func publish(_ folder: URL, _ write: (URL) throws -> Void) throws {
        let fm = FileManager.default
        let parent = folder.deletingLastPathComponent(), name = folder.lastPathComponent
        let pid = ProcessInfo.processInfo.processIdentifier
        let temporary = parent.appendingPathComponent(".\(name).\(pid).tmp", isDirectory: true)
        let old = parent.appendingPathComponent(".\(name).old.\(pid).tmp", isDirectory: true)
        try? fm.removeItem(at: temporary)
        try? fm.removeItem(at: old)
        try fm.createDirectory(at: temporary, withIntermediateDirectories: true)
        do {
            try write(temporary)
            if fm.fileExists(atPath: folder.path) {
                guard rename(folder.path, old.path) == 0 else { throw PipelineError.io("\(folder.path): cannot move aside (\(String(cString: strerror(errno))))") }
            }
            guard rename(temporary.path, folder.path) == 0 else {
                let reason = String(cString: strerror(errno))
                _ = rename(old.path, folder.path)
                throw PipelineError.io("\(folder.path): cannot publish (\(reason))")
            }
        } catch {
            try? fm.removeItem(at: temporary)
            throw error
        }
        try? fm.removeItem(at: old)
    }
}
