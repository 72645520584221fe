import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 2: SIFT features of every image under its mask, in parallel; failed, blank and blurred
/// frames out.
///
/// The features themselves are checkpointed one file per image (`work/features-*/`, named by
/// the image's and mask's contents, written atomically), so a killed run keeps every image it
/// finished; the stage's checkpoint records which images were kept and why the others were not.
public struct FeatureStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// SIFT settings. Defaults from the C core.
        public var sift = SIFTOptions()
        /// Full resolution for captures of few views. Default on.
        public var resolution = FeatureResolution()
        /// Frames below this fraction of the capture's median blur score are rejected (0 keeps
        /// every frame). Default 0.3.
        public var blurFloorFraction = 0.3
        /// Frames whose grey levels vary less than this are rejected as blank. Default 1/255.
        public var blankContrast = 1.0 / 255

        public init() {}

        public var keyText: String {
            "sift=\(sift.cacheKey) resolution=\(StageKey.describe(resolution)) blur_floor=\(blurFloorFraction) "
                + "blank_contrast=\(blankContrast)"
        }

        public func validate() throws {
            guard (0..<1).contains(blurFloorFraction) else {
                throw PipelineError.invalidOption("blur floor fraction must be in [0, 1)")
            }
            guard blankContrast >= 0 && blankContrast < 1 else {
                throw PipelineError.invalidOption("blank contrast must be in [0, 1)")
            }
            try sift.validate()
            try resolution.validate()
        }
    }

    /// Which images were kept, where their features are, and why the others were left out.
    public struct Output: Codable {
        /// One image left out: its name, why, and the event that says so.
        public struct Rejection: Codable {
            public var name: String
            public var reason: String
            public var event: Int
        }

        /// The feature folder inside `work/`.
        public var folder: String
        /// Per kept image: its index in the capture and its feature file in `folder`.
        public var kept: [Int]
        public var files: [String]
        public var rejections: [Rejection]
        public var blurFloor: Double?
        public var masks: String?
        /// The features of a run just done (not saved: they are in the files).
        var features: [FeatureSet]?

        enum CodingKeys: String, CodingKey { case folder, kept, files, rejections, blurFloor = "blur_floor", masks }
    }

    public static let name = "features"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let capture = scene.capture, masks = scene.masks
        let sift = options.resolution.siftOptions(for: capture, options.sift)
        if sift.maxImageSize != options.sift.maxImageSize {
            context.progress?.event(.fewViewsFullResolution, "few views: features at full resolution (\(sift.maxImageSize) px)")
        }
        let folder = "features-" + sift.cacheKey + (masks.map { "-" + $0.cacheKey } ?? "")
        let cache = context.layout.checkpoint(folder)
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let extraction = try FeatureExtraction.run(capture: capture, masks: masks, options: sift, threads: context.threads,
                                                   cacheDirectory: cache, progress: context.progress)
        var rejections: [Output.Rejection] = []
        var candidates: [(index: Int, set: FeatureSet)] = []
        for i in capture.images.indices {
            if let set = extraction.features[i] {
                candidates.append((i, set))
            } else if let failure = extraction.failures.first(where: { $0.index == i }) {
                rejections.append(.init(name: capture.images[i].name, reason: failure.reason, event: PipelineEvent.featuresFailed.code))
            }
        }
        // A blank frame (a lens cap, a black frame between takes) is not blurred, and its zero
        // sharpness must not lower the median the blur floor is taken from.
        let isBlank = { (set: FeatureSet) in set.contrast < options.blankContrast }
        let floor = blurFloor(candidates.filter { !isBlank($0.set) }.map { $0.set.blurScore })
        var output = Output(folder: folder, kept: [], files: [], rejections: [], blurFloor: floor,
                            masks: extraction.maskSummary(masks), features: [])
        for (index, set) in candidates {
            let name = capture.images[index].name
            if isBlank(set) {
                rejections.append(.init(name: name, reason: String(format: "blank (no contrast: grey levels vary by %.2f of 255)",
                                                                   255 * set.contrast), event: PipelineEvent.frameBlank.code))
            } else if let floor, set.blurScore < floor {
                rejections.append(.init(name: name, reason: String(format: "blurred: sharpness %.2g below the capture's floor %.2g",
                                                                   set.blurScore, floor), event: PipelineEvent.frameBlurred.code))
            } else {
                output.kept.append(index)
                output.files.append(FeatureExtraction.cacheName(capture.images[index], mask: masks?.maskURL(for: capture.images[index])))
                output.features?.append(set)
            }
        }
        output.rejections = rejections
        return output
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let features = try output.features ?? output.files.map { file in
            // A feature file gone or unreadable makes the checkpoint unusable, and the stage runs
            // (which makes the missing files again and loads the others).
            do {
                return try FeatureSet.load(from: context.layout.checkpoint(output.folder).appendingPathComponent(file))
            } catch {
                throw PipelineError.io("features checkpoint: \(error)")
            }
        }
        guard features.count == output.kept.count, output.kept.allSatisfy(scene.capture.images.indices.contains) else {
            throw PipelineError.io("features checkpoint does not fit the capture")
        }
        scene.report.masks = output.masks
        scene.report.blurFloor = output.blurFloor
        // The checkpoint's key holds the fraction, so the options' is the one that made the floor.
        scene.report.blurFloorFraction = output.blurFloor == nil ? nil : options.blurFloorFraction
        for rejection in output.rejections {
            scene.reject(rejection.name, rejection.reason, PipelineEvent(rawValue: rejection.event) ?? .featuresFailed, context)
        }
        var usable = scene.capture
        usable.images = output.kept.map { scene.capture.images[$0] }
        scene.usable = usable
        scene.features = features
        scene.siftOptions = options.resolution.siftOptions(for: scene.capture, options.sift)
        try scene.requireUsableImages(usable.images, of: scene.capture, context)
    }

    /// The blur score below which a frame is rejected, relative to the capture's median; nil
    /// when blur rejection is off or there are too few frames to compare.
    func blurFloor(_ scores: [Double]) -> Double? {
        guard options.blurFloorFraction > 0, scores.count >= CaptureLoader.minimumImages,
              let median = scores.median() else { return nil }
        return options.blurFloorFraction * median
    }
}
