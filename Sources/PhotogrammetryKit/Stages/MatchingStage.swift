import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 3: pairs chosen, matched and geometrically verified; static features of a fixed camera out.
public struct MatchingStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Pairs, descriptor matching, verification, static features. Defaults from the C core.
        public var matching = MatchingOptions()
        /// The room is the subject: pairs chosen as for a walk. Default false.
        public var room = false
        /// Pinhole intrinsics held fixed (`--intrinsics`). Default nil.
        public var fixedIntrinsics: FixedIntrinsics?
        /// Camera model to self-calibrate. Default nil (chosen from EXIF).
        public var cameraModel: CameraModel?

        public init() {}

        public var keyText: String {
            "matching=\(StageKey.describe(matching)) room=\(room) intrinsics=\(StageKey.describe(fixedIntrinsics)) "
                + "camera_model=\(cameraModel?.name ?? "auto")"
        }

        public func validate() throws { try matching.validate() }

        /// The matching options with the room's walk pairs.
        var effectiveMatching: MatchingOptions {
            var options = matching
            options.pairs.walk = options.pairs.walk || room
            return options
        }
    }

    /// The match graph, what a second pass needs, and whether a fixed camera took the capture.
    public struct Output: Codable {
        public var matching: PairMatching.Result
        public var turntable: Bool
        /// "static features", "automatic masks" or "still background" when `turntable`.
        public var turntableEvidence: String?
    }

    public static let name = "matching"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The cameras of the usable images (which the verification trusts when they have a prior).
    func cameraSetup(_ scene: ReconstructionScene) -> CameraSetup {
        CameraSetup(capture: scene.usable, fixed: options.fixedIntrinsics, model: options.cameraModel, priors: scene.priors)
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let setup = cameraSetup(scene)
        let calibration = setup.trustedCalibration(imageCount: scene.usable.images.count)
        var matchingOptions = options.effectiveMatching
        if scene.report.automaticMasks?.used == true {
            // The camera is known fixed, and automatic masks may keep slivers of the still
            // background (a shadow, an edge): a few pairs with still matches spread in 2-D (an
            // object turning about its axis keeps still points on one line only) show them.
            // Measured: 0.07 of the pairs with such slivers, 0 without (docs/algorithms/segmentation.md).
            matchingOptions.staticFeatures.minStaticPairFraction = 0.03
        }
        let matching = try PairMatching.run(features: scene.features, calibration: calibration, options: matchingOptions,
                                            threads: context.threads, progress: context.progress,
                                            priorViews: priorViews(scene, setup))
        let evidence = try fixedCameraEvidence(matching.staticFeatures, scene, context)
        return Output(matching: matching, turntable: evidence != nil, turntableEvidence: evidence)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.matching.graph.numImages == scene.usable.images.count else {
            throw PipelineError.io("matching checkpoint does not fit the images")
        }
        scene.setup = cameraSetup(scene)
        scene.matching = output.matching
        scene.turntable = output.turntable
        scene.report.turntableEvidence = output.turntableEvidence
        if output.matching.staticFeatures.isTurntable {
            scene.report.staticFeaturesDiscarded = output.matching.staticFeatures.discardedCount
        }
    }

    /// Each usable image's view from the pose priors (its frustum from the priors' intrinsics,
    /// else from the camera set-up's); nil without priors.
    func priorViews(_ scene: ReconstructionScene, _ setup: CameraSetup) -> [PairSelection.PriorView?]? {
        guard let priors = scene.priors else { return nil }
        return scene.usable.images.enumerated().map { i, image in
            guard let prior = priors.byName[image.name] else { return nil }
            // The priors' intrinsics only when they are of the image as it is upright (a sensor's
            // landscape intrinsics for a portrait frame would swap the frustum's sides).
            let own = prior.camera.flatMap { ($0.width > $0.height) == (image.width > image.height) ? $0 : nil }
            let camera = own ?? setup.cameras[setup.cameraOfImage[i].rawValue - 1]
            let f = camera.focalLengths
            return PairSelection.PriorView(camFromWorld: prior.camFromWorld,
                                           halfTangents: SIMD2(Double(camera.width) / (2 * f.x), Double(camera.height) / (2 * f.y)),
                                           calibration: Self.calibration(of: camera, forWidth: image.width, height: image.height))
        }
    }

    /// The camera's calibration matrix rescaled to an image of `width` x `height` (priors may
    /// give the intrinsics of the sensor's full frame for smaller images).
    static func calibration(of camera: Camera, forWidth width: Int, height: Int) -> Matrix3 {
        let k = camera.calibrationMatrix
        let sx = Double(width) / Double(camera.width), sy = Double(height) / Double(camera.height)
        return Matrix3(rows: SIMD3(sx * k.rows.0.x, sx * k.rows.0.y, sx * k.rows.0.z),
                       SIMD3(0, sy * k.rows.1.y, sy * k.rows.1.z), SIMD3(0, 0, 1))
    }

    /// What shows a fixed camera (a turntable), nil for a moving one.
    ///
    /// Background features that stood still show it; when masks hid the background from the
    /// features (a mask per frame around the object), the masked-out background itself does:
    /// it does not change between frames.
    func fixedCameraEvidence(_ staticFeatures: StaticFeatures, _ scene: ReconstructionScene,
                             _ context: StageContext) throws -> String? {
        if staticFeatures.isTurntable {
            context.progress?.event(.fixedCamera, String(format: "fixed camera: %d static features discarded (%.0f%% of pairs static)",
                                                         staticFeatures.discardedCount, 100 * staticFeatures.staticPairFraction))
            return "static features"
        }
        if let automatic = scene.report.automaticMasks, automatic.used {
            // Segmentation found the camera fixed from every pixel of the frames, before any
            // feature: the backdrop's still structure (a plain one has too little to test below).
            context.progress?.event(.fixedCamera, "fixed camera: " + automatic.reason)
            return "automatic masks"
        }
        guard let masks = scene.masks, !options.room, options.matching.stillBackground.enabled else { return nil }
        let still = try StillBackground.test(scene.usable, masks: masks, options: options.matching.stillBackground,
                                             threads: context.threads)
        guard still.isStill, let change = still.medianChange else { return nil }
        context.progress?.event(.fixedCamera, String(format: "fixed camera: the background outside the masks did not change (median %.3f over %d frame pairs)",
                                                     change, still.conclusivePairs))
        return "still background"
    }
}

extension CameraSetup {
    /// Per image, its calibration matrix when the focal length is trusted (a prior), else nil:
    /// what matching verifies E with.
    func trustedCalibration(imageCount: Int) -> [Matrix3?] {
        (0..<imageCount).map { i -> Matrix3? in
            let id = cameraOfImage[i]
            return hasPrior[id] == true ? cameras[id.rawValue - 1].calibrationMatrix : nil
        }
    }
}
