import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 7: finer features (``FinerFeatures``: SIFT one octave further down) for the images the
/// largest model still leaves out and their partners, appended to the features they have.
///
/// Each image's finer features are saved in `work/finer-features/`, named by the image's and
/// mask's contents and the SIFT options they were detected with; the checkpoint lists them. An
/// image whose extraction fails keeps the features of stage 2, with a warning
/// (``PipelineEvent/finerFeaturesFailed``): the pass is one more try for images that already
/// have features, and the others' finer features still count.
public struct FinerFeaturesStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Which images, and SIFT's threshold for them.
        public var finerFeatures = FinerFeatures()
        /// What counts as a sequence (``MapperOptions/isSequence(_:)``), whose partners are the
        /// nearest frames.
        public var mapper = MapperOptions()

        public init() {}

        public var keyText: String {
            var mapper = self.mapper
            mapper.numThreads = 1
            return "finer=\(StageKey.describe(finerFeatures)) mapper=\(StageKey.describe(mapper))"
        }

        public func validate() throws {
            try finerFeatures.validate()
            try mapper.validate()
        }
    }

    /// The images chosen, their finer feature files, and the images whose extraction failed.
    public struct Output: Codable {
        /// One image whose finer features could not be extracted, and why.
        public struct Failure: Codable {
            public var name: String
            public var reason: String
        }

        /// Images the largest model left out.
        public var leftOut: Int
        /// The images chosen (indices into the usable images), ascending.
        public var images: [Int]
        /// Per chosen image, its file in ``folder``; nil where extraction failed.
        public var files: [String?]
        public var failures: [Failure]
        /// Keypoints the finer octave added in all.
        public var keypointsAdded: Int
        /// The features of a run just done (not saved: they are in the files).
        var features: [FeatureSet?]?

        enum CodingKeys: String, CodingKey { case leftOut = "left_out", images, files, failures, keypointsAdded = "keypoints_added" }
    }

    public static let name = "finer-features"
    /// The folder of the finer feature files inside `work/`.
    static let folder = "finer-features"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The images left out, and those chosen for finer features.
    func choice(_ scene: ReconstructionScene) -> (leftOut: [Int], chosen: [Int]) {
        guard let graph = scene.matching?.graph else { return ([], []) }
        let registered = Set(scene.model.registeredImageIDs.map { $0.rawValue - 1 })
        let leftOut = scene.usable.images.indices.filter { !registered.contains($0) }
        return (leftOut, options.finerFeatures.images(leftOut: leftOut, graph: graph, isSequence: options.mapper.isSequence(graph)))
    }

    /// Only when the largest model leaves images out and some are chosen (not more than the cap).
    public func hasWork(_ scene: ReconstructionScene) -> Bool {
        scene.modelLeavesImagesOut && !choice(scene).chosen.isEmpty
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let (leftOut, chosen) = choice(scene)
        let directory = context.layout.checkpoint(Self.folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let found = ResultSlots<(file: String, set: FeatureSet)>(count: chosen.count)
        let reasons = ResultSlots<String>(count: chosen.count)
        let counter = ProgressCounter(stage: Self.name, total: chosen.count, sink: context.progress)
        parallelFor(chosen.count, threads: context.threads) { n in
            defer { counter.step() }
            let image = scene.usable.images[chosen[n]], base = scene.features[chosen[n]]
            let sift = options.finerFeatures.siftOptions(scene.siftOptions, base: base)
            let mask = scene.masks?.maskURL(for: image)
            do {
                let finer = try base.addingFinerFeatures(imageURL: image.url, maskURL: mask, keepRect: scene.masks?.keepRect,
                                                         options: sift)
                let file = Self.fileName(image, mask: mask, base: scene.siftOptions, finer: sift, masks: scene.masks)
                try finer.save(to: directory.appendingPathComponent(file))
                found[n] = (file, finer)
            } catch {
                reasons[n] = "\(error)"
            }
        }
        try counter.checkCancelled()
        var output = Output(leftOut: leftOut.count, images: chosen, files: [], failures: [], keypointsAdded: 0, features: [])
        for (n, i) in chosen.enumerated() {
            output.files.append(found[n]?.file)
            output.features?.append(found[n]?.set)
            if let finer = found[n]?.set { output.keypointsAdded += finer.count - scene.features[i].count }
            if let reason = reasons[n] { output.failures.append(.init(name: scene.usable.images[i].name, reason: reason)) }
        }
        return output
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.files.count == output.images.count, output.images.allSatisfy(scene.features.indices.contains) else {
            throw PipelineError.io("finer features checkpoint does not fit the images")
        }
        let directory = context.layout.checkpoint(Self.folder)
        var features = scene.features
        for (n, i) in output.images.enumerated() {
            if let set = output.features?[n] {
                features[i] = set
            } else if let file = output.files[n] {
                // A file gone or unreadable makes the checkpoint unusable, and the stage runs.
                do {
                    features[i] = try FeatureSet.load(from: directory.appendingPathComponent(file))
                } catch {
                    throw PipelineError.io("finer features checkpoint: \(error)")
                }
            }
        }
        scene.finerFeatures = features
        scene.finerImages = output.images
        for failure in output.failures {
            context.progress?.event(.finerFeaturesFailed, "\(failure.name): no finer features (\(failure.reason)); its features "
                                    + "stay as they were", subject: failure.name)
        }
        context.progress?.event(.finerFeatures, "finer features: \(output.leftOut) left out, \(output.images.count) images "
                                + "(\(output.keypointsAdded) keypoints added)")
    }

    /// The file of an image's finer features: named by the image's and mask's contents, and by
    /// every option they depend on (the base features' SIFT options, the finer octave's, the
    /// masks), so a file of other options is never taken for them.
    static func fileName(_ image: CaptureImage, mask: URL?, base: SIFTOptions, finer: SIFTOptions, masks: MaskSource?) -> String {
        var hash = StableHash()
        hash.add(base.cacheKey)
        hash.add(finer.cacheKey)
        hash.add(masks?.cacheKey ?? "no masks")
        return String(FeatureExtraction.cacheName(image, mask: mask).dropLast(".sift".count)) + "-" + hash.hex + ".sift"
    }
}
