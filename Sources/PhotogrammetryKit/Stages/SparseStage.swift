import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 4: incremental SfM on the verified pairs: focal lengths from the pairs' fundamental
/// matrices, tracks, the mapper and bundle adjustment; every model, largest first.
///
/// The passes that try again when the largest model leaves images out (stages 5-9) run the same
/// SfM (``reconstruct(_:_:_:_:)``) on what they found, with these options.
public struct SparseStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Incremental mapping. Defaults follow COLMAP's; bundle adjustment stays on one thread
        /// whatever the context's count, so that every run gives the same poses.
        public var mapper = MapperOptions()
        /// The view graph's averaged rotations that registered poses are checked against.
        public var rotations = RotationConsistency()
        /// Seed of RANSAC and sampling. Default 0.
        public var seed: UInt64 = 0

        public init() {}

        public var keyText: String {
            var mapper = self.mapper
            mapper.numThreads = 1
            mapper.seed = seed
            return "mapper=\(StageKey.describe(mapper)) rotations=\(StageKey.describe(rotations))"
        }

        public func validate() throws {
            try mapper.validate()
            try rotations.validate()
        }
    }

    /// Every model, largest first, without unregistered images.
    public struct Output: Codable {
        public var models: [Reconstruction]
    }

    public static let name = "sparse"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let matching = scene.matching else { throw PipelineError.io("sparse: matching did not run") }
        return Output(models: try reconstruct(scene, scene.features, matching.graph, context))
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard !output.models.isEmpty else { throw PipelineError.io("sparse checkpoint holds no model") }
        scene.models = output.models
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

    /// Focal lengths, tracks and incremental SfM on `features` and `graph` (its poses checked
    /// against the view graph's rotations); every model, largest first.
    ///
    /// The focal lengths the camera set-up does not know are estimated from `graph` afresh in
    /// every SfM run, as each runs on another graph; the scene's set-up is left as it is.
    /// - Parameter stage: the stage whose progress the mapper's is.
    func reconstruct(_ scene: ReconstructionScene, _ features: [FeatureSet], _ graph: MatchGraph,
                     _ context: StageContext, stage: String = Self.name) throws -> [Reconstruction] {
        guard var setup = scene.setup else { throw PipelineError.io("\(Self.name): matching did not run") }
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
        let tracks = TrackSet(graph: graph, keypointCounts: features.map(\.count),
                              splittingInconsistent: options.mapper.splitInconsistentTracks)
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
        mapper.onProgress = { done, total in progress?.update(stage: stage, done: done, total: total) ?? true }
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

extension SparseStage {
    /// What SfM run again made (stages 6 and 9): the size of its largest model, and its models
    /// when that holds more images than the scene's largest (the earlier models stay otherwise).
    public struct Retry: Codable {
        /// Registered images of the new largest model.
        public var registered: Int
        /// The new models, largest first; nil when the earlier ones were kept.
        public var models: [Reconstruction]?
    }

    /// SfM on `features` and `graph`, kept when its largest model holds more images than the
    /// scene's.
    func retry(_ scene: ReconstructionScene, _ features: [FeatureSet], _ graph: MatchGraph, _ context: StageContext,
               stage: String) throws -> Retry {
        let models = try reconstruct(scene, features, graph, context, stage: stage)
        let registered = models.first?.registeredImageIDs.count ?? 0
        return Retry(registered: registered, models: registered > scene.model.registeredImageIDs.count ? models : nil)
    }

    /// Puts a retry's models into the scene when they were kept; returns the registered images
    /// of the scene's largest model before.
    static func apply(_ retry: Retry, to scene: ReconstructionScene) throws -> Int {
        let before = scene.model.registeredImageIDs.count
        if let models = retry.models {
            guard !models.isEmpty, retry.registered > before else { throw PipelineError.io("a sparse checkpoint does not fit the model") }
            scene.models = models
        }
        return before
    }
}
