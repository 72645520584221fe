import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 5: the second matching pass, when the largest model leaves images out: transitive
/// pairs (partners of partners) and spatial pairs (cameras of the model that look at the same
/// points), matched and verified, added to the graph.
///
/// `photogrammetry match --transitive` runs it with no model (transitive pairs only).
public struct RematchingStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Which pairs are added, and how they are matched and verified. Defaults from the C core.
        public var matching = MatchingOptions()

        public init() {}

        public var keyText: String { "matching=\(StageKey.describe(matching))" }
        public func validate() throws { try matching.validate() }

        /// Whether the pass adds any kind of pair.
        public var isOn: Bool { matching.rematch.transitive || matching.rematch.spatial }
    }

    /// The graph with the pairs added, and how many verified pairs it gained.
    public struct Output: Codable {
        public var matching: PairMatching.Result
        public var added: Int
    }

    public static let name = "rematching"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Only while the largest model leaves images out (and always without a model).
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.modelLeavesImagesOut }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let matching = scene.matching, let setup = scene.setup else { throw PipelineError.io("rematching: matching did not run") }
        let rematched = try PairMatching.rematch(matching, reconstruction: scene.models.first, features: scene.features,
                                                 calibration: setup.trustedCalibration(imageCount: scene.usable.images.count),
                                                 options: options.matching, threads: context.threads, progress: context.progress)
        return Output(matching: rematched, added: rematched.graph.edges.count - matching.graph.edges.count)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.matching.graph.numImages == scene.usable.images.count else {
            throw PipelineError.io("rematching checkpoint does not fit the images")
        }
        scene.matching = output.matching
        scene.rematchedPairs = output.added
    }
}
