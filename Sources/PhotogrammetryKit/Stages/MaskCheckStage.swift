import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 9b: automatic masks judged by the poses made with them.
///
/// A background model can miss what never changes (a plain object's middle, a plate whose
/// pattern barely moves as it turns) and the features then miss what carried the poses. The
/// pose check (``PoseCheck``) needs no ground truth: when the largest model made under automatic
/// masks fails it, the masks are set aside and the sparse passes run again without them
/// (stages 2'-9', ``UnmaskedRerun``), where static-feature rejection keeps the backdrop out. A
/// user's masks are never judged: they say what the subject is.
///
/// Not checkpointed: a function of the sparse models (which are), done in about a second.
public struct MaskCheckStage: ReconstructionStage {
    public struct Options: StageOptions {
        public init() {}
        public var keyText: String { "" }
        public func validate() throws {}
    }

    /// Whether the poses passed, and what failed when they did not.
    public struct Output {
        public var passed: Bool
        public var reason: String
    }

    public static let name = "mask-check"
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Only after automatic masks were used.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.report.automaticMasks?.used == true }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let input = scene.poseCheckInput(threads: context.threads) else {
            return Output(passed: false, reason: "no model")
        }
        let summary = PoseCheck.run(scene.model, input).summary
        return Output(passed: summary.passed, reason: summary.reason ?? "the pose check failed")
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        scene.report.automaticMasks?.rejectedByPoseCheck = !output.passed
        guard !output.passed else { return }
        scene.maskedPasses = (SparsePassState(of: scene), output.reason)
        SparsePassState.clear(scene)
        let reason = Self.reason(output.reason, keptMasks: false)
        scene.report.automaticMasks?.used = false
        scene.report.automaticMasks?.reason = reason
        context.progress?.event(.automaticMasks, "automatic masks set aside: " + reason)
    }

    /// What `report.json`'s `automatic_masks.reason` says after the check rejected the masks.
    /// - Parameter keptMasks: the images made no model without them, so the masked poses stand.
    static func reason(_ failure: String, keptMasks: Bool) -> String {
        "the poses made with them failed the pose check (\(failure)); "
            + (keptMasks ? "without them the images made no model, so the poses made with them stand"
                         : "the sparse passes ran again without them")
    }
}

/// What ``UnmaskedRerun`` adds to its stage's name: "features-unmasked".
let unmaskedRerunSuffix = "-unmasked"

/// A stage of the sparse passes run again without the automatic masks, after the pose check
/// rejected the poses made with them (``MaskCheckStage``): stages 2'-9', under their own names
/// (`features-unmasked`, ...) and checkpoints. Nothing to do otherwise.
///
/// If this run finds no model at all (no initial pair: a textureless object whose backdrop
/// outvotes it), the masked passes' results come back: a flagged model is worth more than none.
public struct UnmaskedRerun<Stage: CheckpointedStage>: CheckpointedStage {
    public typealias Options = Stage.Options
    public typealias Output = Stage.Output?

    public static var name: String { Stage.name + unmaskedRerunSuffix }
    public static var listedWhenSkipped: Bool { false }
    public let stage: Stage
    public var options: Options { stage.options }

    public init(_ stage: Stage) {
        self.stage = stage
    }

    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.automaticMasksRejected && stage.hasWork(scene) }
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String { stage.inputDigest(scene, context) }
    public func outputKey(_ key: String, _ scene: ReconstructionScene) -> String { stage.outputKey(key, scene) }

    /// The stage's output; nil when the images make no model without masks.
    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        do {
            return try stage.run(scene, context)
        } catch PipelineError.noInitialPair, PipelineError.tooFewImages {
            return nil
        }
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        if let output {
            try stage.apply(output, to: scene, context)
            return
        }
        guard let masked = scene.maskedPasses else { return }
        masked.state.restore(to: scene)
        scene.maskedPasses = nil
        let reason = MaskCheckStage.reason(masked.failure, keptMasks: true)
        scene.report.automaticMasks?.rejectedByPoseCheck = true
        scene.report.automaticMasks?.reason = reason
        context.progress?.event(.automaticMasks, "automatic masks kept: " + reason)
    }
}
