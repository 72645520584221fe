import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// A run that stops after matching (`photogrammetry match`).
extension ReconstructionPipeline {
    /// What a match-only run found: the images, the pairs tried and those verified.
    public struct MatchingSummary: Codable, Sendable {
        /// One verified pair: image indices into `images` and the verified match count.
        public struct Pair: Codable, Sendable {
            public var first: Int
            public var second: Int
            public var matches: Int
        }

        /// Names of the usable images, in the order the indices refer to.
        public var images: [String]
        /// Features of each image.
        public var features: [Int]
        /// The strategy that chose the pairs (exhaustive, retrieval, sequential).
        public var strategy: String
        /// Every pair matched, as [i, j] with i < j.
        public var tried: [[Int]]
        /// The pairs of `tried` that the transitive pass added (empty without it).
        public var rematched: [[Int]] = []
        /// The geometrically verified pairs.
        public var verified: [Pair]
        /// Stage timings (ingest, features, matching).
        public var stages: [Report.Stage]
        /// CPU seconds (user + system, all threads) of matching (and of the transitive pass).
        public var matchingCPUSeconds: Double
        /// Retrieval only: each image's 100 most similar images, most similar first.
        public var ranking: [[Int]]?
    }

    /// Runs stages 1-3 only and writes `OUTPUT/matches.json`: for benchmarks of pair selection.
    /// - Parameter transitive: then stage 5, the second matching pass, without a model
    ///   (transitive pairs only), whose pairs `rematched` lists.
    @discardableResult
    public func runMatching(transitive: Bool = false) throws -> MatchingSummary {
        try announcingFailure { try runMatchingStages(transitive: transitive) }
    }

    /// The stages of ``runMatching(transitive:)``: 1-3 (and 1a) of ``stages(_:)``, resumed alike, and 5
    /// (with no model: transitive pairs only) when asked.
    private func runMatchingStages(transitive: Bool) throws -> MatchingSummary {
        try start()
        let preparing = [PipelineStep(IngestStage(options: options.ingestStage)),
                         PipelineStep(SegmentationStage(options: options.segmentationStage)),
                         PipelineStep(FeatureStage(options: options.featureStage))]
        let matchingStep = PipelineStep(MatchingStage(options: options.matchingStage))
        let rematchingStep = PipelineStep(RematchingStage(options: options.rematchingStage), skip: !transitive)
        // The plan the stages announce: these five, not the whole pipeline's.
        steps = preparing + [matchingStep, rematchingStep]
        for step in preparing { try step.perform(self, step.skip) }
        let cpuBefore = Self.processCPUSeconds()
        try matchingStep.perform(self, matchingStep.skip)
        guard let first = scene.matching else { throw PipelineError.io("matching did not run") }
        try rematchingStep.perform(self, rematchingStep.skip)
        guard let matching = scene.matching else { throw PipelineError.io("matching did not run") }
        let features = scene.features
        let cpuSeconds = Self.processCPUSeconds() - cpuBefore
        var ranking: [[Int]]?
        if matching.strategy == .retrieval {
            ranking = try ImageRetrieval(features: features, options: options.matching.pairs.retrieval,
                                         threads: options.numThreads).nearestNeighbours(count: 100).map { $0.map(\.image) }
        }
        var summary = MatchingSummary(
            images: scene.usable.images.map(\.name), features: features.map(\.count), strategy: matching.strategy.rawValue,
            tried: matching.tried.sorted { ($0.x, $0.y) < ($1.x, $1.y) }.map { [Int($0.x), Int($0.y)] },
            verified: matching.graph.edges.map { MatchingSummary.Pair(first: $0.first, second: $0.second, matches: $0.matches.count) },
            stages: scene.report.stages, matchingCPUSeconds: cpuSeconds)
        summary.ranking = ranking
        summary.rematched = matching.tried.subtracting(first.tried).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
            .map { [Int($0.x), Int($0.y)] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try writeAtomically(try encoder.encode(summary), to: layout.matches)
        CaptureLoader.removeUnpackedInput(workspace: workDirectory)
        return summary
    }

    /// User + system CPU seconds of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
