import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 10: with pose priors, every model put into the priors' frame and refined with them
/// (``PriorAlignment``): a model whose cameras agree with too few priors stays in its own frame.
public struct PriorAlignmentStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// How many cameras, and the floors of the prior costs' sigmas.
        public var priorAlignment = PriorAlignmentOptions()
        /// The SfM's options, whose final bundle adjustment the refinement follows.
        public var sparse = SparseStage.Options()

        public init() {}

        public var keyText: String { "priors=\(StageKey.describe(priorAlignment)) \(sparse.keyText)" }

        public func validate() throws {
            try priorAlignment.validate()
            try sparse.validate()
        }
    }

    /// The models in the priors' frame (those that could be), and per model how it was put there.
    public struct Output: Codable {
        public var models: [Reconstruction]
        /// Per model, how it was put in the priors' frame (nil: it was not).
        public var alignments: [PriorAlignment?]
    }

    public static let name = "prior-alignment"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Only when the run has pose priors.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.priors != nil }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let priors = scene.priors, let setup = scene.setup else { throw PipelineError.io("\(Self.name): no pose priors") }
        let byImage = Dictionary(uniqueKeysWithValues: scene.usable.images.enumerated().compactMap { i, image in
            priors.byName[image.name].map { (ImageID(i + 1), $0.camFromWorld) }
        })
        var models = scene.models, alignments: [PriorAlignment?] = []
        for n in models.indices {
            alignments.append(try PriorAlignment.align(&models[n], priors: byImage, options: options.priorAlignment,
                                                       bundle: bundleOptions(setup, turntable: scene.turntable)))
        }
        return Output(models: models, alignments: alignments)
    }

    /// Bundle adjustment with priors refines as the mapper's final global adjustment does (its
    /// loss scale, and intrinsics held on turntables), so that it does not undo that pass.
    func bundleOptions(_ setup: CameraSetup, turntable: Bool) -> BundleAdjustmentOptions {
        let mapper = SparseStage(options: options.sparse).mapperOptions(setup, turntable: turntable)
        var ba = mapper.finalBundleOptions(refineIntrinsics: mapper.refineIntrinsics && options.sparse.mapper.refineIntrinsics)
        ba.numThreads = 1
        return ba
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.models.count == scene.models.count, output.alignments.count == output.models.count else {
            throw PipelineError.io("prior alignment checkpoint does not fit the models")
        }
        scene.models = output.models
        scene.priorAlignments = output.alignments
        if (output.alignments.first ?? nil) != nil { scene.report.modelFrame = "pose_priors" }
        for (n, alignment) in output.alignments.enumerated() {
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
    }
}
