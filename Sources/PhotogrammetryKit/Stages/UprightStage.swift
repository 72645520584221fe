import Foundation
import PhotogrammetryCore

/// Stage 13: every model stood upright (``Reconstruction/uprightTransform(gravity:)``: +Y up,
/// centred, the first photo's side on +Z), as USD and ARKit take a model. Skipped for a model in
/// the pose priors' frame, which is kept as given.
public struct UprightStage: CheckpointedStage {
    /// Per model, the rigid motion that stood it upright (nil: left as it was).
    public struct Output: Codable {
        public var motions: [Similarity3?]
    }

    public static let name = "upright"
    public let options = NoStageOptions()

    public init() {}

    /// Not in the pose priors' frame.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { (scene.priorAlignments.first ?? nil) == nil }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        Output(motions: scene.models.map { $0.uprightTransform() })
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.motions.count == scene.models.count else { throw PipelineError.io("upright checkpoint does not fit the models") }
        scene.models = zip(scene.models, output.motions).map { model, motion in motion.map(model.transformed(by:)) ?? model }
    }
}
