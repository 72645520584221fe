import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 8: the pairs among the images of the finer-features pass that were matched before (the
/// pairs the capture's pair selection found worth matching), matched and verified again on the
/// finer keypoints of both sides.
public struct FinerMatchingStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Descriptor matching and verification. Defaults from the C core.
        public var matching = MatchingOptions()

        public init() {}

        public var keyText: String { "matching=\(StageKey.describe(matching))" }
        public func validate() throws { try matching.validate() }
    }

    /// The graph with those pairs matched again, and how many pairs that was.
    public struct Output: Codable {
        public var matching: PairMatching.Result
        public var pairs: Int
    }

    public static let name = "finer-matching"
    public var options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Only after the finer-features pass chose images.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { scene.finerFeatures != nil }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        guard let matching = scene.matching, let setup = scene.setup, let features = scene.finerFeatures else {
            throw PipelineError.io("\(Self.name): finer features did not run")
        }
        let chosen = Set(scene.finerImages)
        let pairs = matching.tried.filter { chosen.contains(Int($0.x)) && chosen.contains(Int($0.y)) }.sorted {
            ($0.x, $0.y) < ($1.x, $1.y)
        }
        let rematched = try PairMatching.rematchWithFeatures(
            matching, pairs: pairs, features: features,
            calibration: setup.trustedCalibration(imageCount: scene.usable.images.count), options: options.matching,
            threads: context.threads, progress: context.progress)
        trace("finer features: images \(scene.finerImages), keypoints added "
              + "\(zip(features, scene.features).map { $0.count - $1.count }.reduce(0, +))")
        for edge in rematched.graph.edges where mapperTracing && chosen.contains(edge.first) && chosen.contains(edge.second) {
            let old = matching.graph.edges.first { $0.first == edge.first && $0.second == edge.second }?.matches.count ?? 0
            trace("finer features: pair \(edge.first)-\(edge.second) matches \(old) -> \(edge.matches.count)")
        }
        return Output(matching: rematched, pairs: pairs.count)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.matching.graph.numImages == scene.usable.images.count else {
            throw PipelineError.io("finer matching checkpoint does not fit the images")
        }
        scene.finerMatching = output.matching
    }
}
