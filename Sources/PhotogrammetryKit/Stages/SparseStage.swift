import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 4: tracks, focal lengths, incremental SfM and bundle adjustment; when the largest model
/// leaves images out, a second matching pass (transitive, spatial pairs) and SfM again on it.
public struct SparseStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Incremental mapping. Defaults follow COLMAP's; bundle adjustment stays on one thread
        /// whatever the context's count, so that every run gives the same poses.
        public var mapper = MapperOptions()
        /// Matching options of the second pass. Defaults from the C core.
        public var matching = MatchingOptions()
        /// The view graph's averaged rotations that registered poses are checked against.
        public var rotations = RotationConsistency()
        /// Seed of RANSAC and sampling. Default 0.
        public var seed: UInt64 = 0
        /// Putting the models into the pose priors' frame, when the run has priors.
        public var priorAlignment = PriorAlignmentOptions()
        /// Finer features for the images the largest model leaves out, and SfM again.
        public var finerFeatures = FinerFeatures()

        public init() {}

        public var keyText: String {
            var mapper = self.mapper
            mapper.numThreads = 1
            mapper.seed = seed
            return "mapper=\(StageKey.describe(mapper)) rematch=\(StageKey.describe(matching))"
                + " rotations=\(StageKey.describe(rotations)) finer=\(StageKey.describe(finerFeatures))"
        }

        public func validate() throws {
            try mapper.validate()
            try matching.validate()
            try priorAlignment.validate()
            try rotations.validate()
            try finerFeatures.validate()
        }
    }

    /// Every model, largest first, without unregistered images.
    public struct Output: Codable {
        public var models: [Reconstruction]
        /// With pose priors: per model, how it was put in the priors' frame (nil: it was not).
        public var priorAlignments: [PriorAlignment?]?
    }

    public static let name = "sparse"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let setup = scene.setup, var matching = scene.matching else { throw PipelineError.io("sparse: matching did not run") }
        var firstSetup = setup
        var models = try reconstruct(scene, scene.features, matching.graph, &firstSetup, context)
        if models[0].registeredImageIDs.count < scene.usable.images.count {
            (models, matching) = try secondPass(models, matching: matching, setup: setup, scene, context)
        }
        if models[0].registeredImageIDs.count < scene.usable.images.count {
            models = try finerFeaturesPass(models, matching: matching, setup: setup, scene, context)
        }
        guard let priors = scene.priors else { return Output(models: models) }
        var alignments: [PriorAlignment?] = []
        let byImage = Dictionary(uniqueKeysWithValues: scene.usable.images.enumerated().compactMap { i, image in
            priors.byName[image.name].map { (ImageID(i + 1), $0.camFromWorld) }
        })
        for n in models.indices {
            alignments.append(try PriorAlignment.align(&models[n], priors: byImage, options: options.priorAlignment,
                                                       bundle: priorBundleOptions(setup, turntable: scene.turntable)))
        }
        return Output(models: models, priorAlignments: alignments)
    }

    /// With priors, the alignment's options (the models are refined with them): "" without,
    /// so that runs without priors keep their keys.
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String {
        scene.priors == nil ? "" : "priors " + StageKey.describe(options.priorAlignment)
    }

    /// Bundle adjustment with priors refines as the mapper's final global adjustment does (its
    /// loss scale, and intrinsics held on turntables), so that it does not undo that pass.
    func priorBundleOptions(_ setup: CameraSetup, turntable: Bool) -> BundleAdjustmentOptions {
        let mapper = mapperOptions(setup, turntable: turntable)
        var ba = mapper.finalBundleOptions(refineIntrinsics: mapper.refineIntrinsics && options.mapper.refineIntrinsics)
        ba.numThreads = 1
        return ba
    }

    /// The mapper's options for this capture: the run's seed, intrinsics refined unless fixed,
    /// and held in the last pass on a turntable.
    func mapperOptions(_ setup: CameraSetup, turntable: Bool) -> MapperOptions {
        var mapper = options.mapper
        mapper.seed = options.seed
        mapper.refineIntrinsics = !setup.isFixed
        if turntable { mapper.finalRefineIntrinsics = false }
        return mapper
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard !output.models.isEmpty else { throw PipelineError.io("sparse checkpoint holds no model") }
        scene.models = output.models
        scene.priorAlignments = output.priorAlignments ?? []
        for (n, alignment) in (output.priorAlignments ?? []).enumerated() {
            let which = n == 0 ? "sparse" : "model \(n + 1)"
            guard let a = alignment else {
                context.progress?.event(.priorAlignment, "\(which): too few cameras with pose priors; left in its own frame")
                continue
            }
            context.progress?.event(.priorAlignment, String(
                format: "%@ in the pose priors' frame: scale %.6g, %d of %d cameras with priors kept, spread %.2f %%, "
                    + "sigmas %.3g and %.2f°, mean centre offset %.3g", which, a.scale, a.inliers, a.cameras,
                100 * a.spread, a.positionSigma, a.rotationSigmaDeg, a.meanCenterOffset))
        }
        scene.summarize()
        scene.describeModels(context)
        scene.describeImages()
    }

    /// Tracks, focal-length initialisation and incremental SfM (its poses checked against the
    /// view graph's rotations); every model, largest first.
    func reconstruct(_ scene: ReconstructionScene, _ features: [FeatureSet], _ graph: MatchGraph,
                     _ setup: inout CameraSetup, _ context: StageContext) throws -> [Reconstruction] {
        let capture = scene.usable
        for (index, camera) in setup.cameras.enumerated() where setup.hasPrior[camera.id] != true {
            let scale = Double(max(camera.width, camera.height))
            if let f = FocalLengthEstimation.estimate(graph: graph, camera: camera, cameraOfImage: setup.cameraOfImage,
                                                      plausible: (0.3 * scale)...(6 * scale)) {
                setup.cameras[index].setFocalLength(f)
                setup.hasPrior[camera.id] = true
                context.progress?.event(.focalLengthEstimated, String(format: "camera %d: focal length %.1f px from %@",
                                                                      camera.id.rawValue, f, "fundamental matrices"))
            }
        }
        let positions = features.map { $0.keypointPositions() }
        let tracks = TrackSet(graph: graph, keypointCounts: features.map(\.count))
        var reconstruction = Reconstruction()
        for camera in setup.cameras { reconstruction.addCamera(camera) }
        for (i, image) in capture.images.enumerated() {
            reconstruction.addImage(Image(id: ImageID(i + 1), name: image.name, cameraID: setup.cameraOfImage[i],
                                          points2D: positions[i]))
        }
        let mapper = IncrementalMapper(reconstruction: reconstruction, tracks: tracks, graph: graph,
                                       colors: features.map(\.colors), cameraHasPrior: setup.hasPrior,
                                       options: mapperOptions(setup, turntable: scene.turntable))
        // On a turntable the pairs see the turning object alone, a small part of the frame, and
        // their rotations scatter too widely to judge a pose by (docs/benchmarks.md).
        if options.rotations.isOn && !scene.turntable {
            mapper.rotationCheck = RotationCheck(options: options.rotations, graph: graph, keypoints: positions,
                                                 cameraOfImage: setup.cameraOfImage, threads: context.threads)
        }
        mapper.priorPoses = scene.priors?.poses(for: capture.images)
        let progress = context.progress
        mapper.onProgress = { done, total in progress?.update(stage: Self.name, done: done, total: total) ?? true }
        _ = try mapper.run()
        if mapper.numRegisteredFromPriors > 0 {
            context.progress?.event(.posePriors, "\(mapper.numRegisteredFromPriors) images registered at their pose priors"
                                    + " (too few points for PnP), refined against the model's points")
        }
        return mapper.models.map { model in
            var model = model
            model.removeUnregisteredImages()
            return model
        }
    }

    /// The second pass of stages 3 and 4: transitive and spatial pairs from the first model,
    /// matched and verified; when they add edges, SfM runs again on the larger graph and wins if
    /// its largest model holds more images. Returns the models and the larger graph.
    func secondPass(_ first: [Reconstruction], matching: PairMatching.Result, setup: CameraSetup,
                    _ scene: ReconstructionScene, _ context: StageContext) throws -> ([Reconstruction], PairMatching.Result) {
        guard options.matching.rematch.transitive || options.matching.rematch.spatial else { return (first, matching) }
        let rematched = try PairMatching.rematch(matching, reconstruction: first[0], features: scene.features,
                                                 calibration: setup.trustedCalibration(imageCount: scene.usable.images.count),
                                                 options: options.matching, threads: context.threads, progress: context.progress)
        let added = rematched.graph.edges.count - matching.graph.edges.count
        guard added > 0 else { return (first, rematched) }
        var retrySetup = setup
        let retry = try reconstruct(scene, scene.features, rematched.graph, &retrySetup, context)
        let better = retry[0].registeredImageIDs.count > first[0].registeredImageIDs.count
        context.progress?.event(.secondPass, "second pass: \(added) new verified pairs; largest model \(retry[0].registeredImageIDs.count) images "
                                + "against \(first[0].registeredImageIDs.count)" + (better ? ", kept" : ", first pass kept"))
        return (better ? retry : first, rematched)
    }
}

extension Reconstruction {
    /// Drops unregistered images (and cameras no image uses), as a COLMAP model holds only
    /// registered images.
    public mutating func removeUnregisteredImages() {
        images = images.filter { $0.value.isRegistered }
        let used = Set(images.values.map(\.cameraID))
        cameras = cameras.filter { used.contains($0.key) }
    }
}
