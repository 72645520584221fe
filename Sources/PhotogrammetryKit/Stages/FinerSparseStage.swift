import Foundation
import PhotogrammetryCore

/// Stage 9: SfM again on the finer features and the pairs matched again on them; its models win
/// when their largest holds more images.
public struct FinerSparseStage: CheckpointedStage {
    public typealias Options = SparseStage.Options
    public typealias Output = SparseStage.Retry

    public static let name = "sparse-finer"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Only after the finer pairs were matched.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.finerMatching != nil }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let features = scene.finerFeatures, let matching = scene.finerMatching else {
            throw PipelineError.io("\(Self.name): finer matching did not run")
        }
        return try SparseStage(options: options).retry(scene, features, matching.graph, context, stage: Self.name)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        let before = try SparseStage.apply(output, to: scene)
        context.progress?.event(.finerFeatures, "finer features: SfM again on \(scene.finerImages.count) images' finer features; "
                                + "largest model \(output.registered) images against \(before)"
                                + (output.models != nil ? ", kept" : ", earlier pass kept"))
    }
}
