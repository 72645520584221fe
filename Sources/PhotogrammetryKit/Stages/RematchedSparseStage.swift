import Foundation
import PhotogrammetryCore

/// Stage 6: SfM again on the graph the second matching pass grew; its models win when their
/// largest holds more images.
public struct RematchedSparseStage: CheckpointedStage {
    public typealias Options = SparseStage.Options
    public typealias Output = SparseStage.Retry

    public static let name = "sparse-rematched"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Only when the second matching pass added verified pairs.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.rematchedPairs > 0 }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let matching = scene.matching else { throw PipelineError.io("\(Self.name): matching did not run") }
        return try SparseStage(options: options).retry(scene, scene.features, matching.graph, context, stage: Self.name)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let before = try SparseStage.apply(output, to: scene)
        context.progress?.event(.secondPass, "second pass: \(scene.rematchedPairs) new verified pairs; largest model \(output.registered) "
                                + "images against \(before)" + (output.models != nil ? ", kept" : ", first pass kept"))
    }
}
