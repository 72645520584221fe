import Foundation

/// Options of stage 3: which pairs, how descriptors match, how pairs are verified.
public struct MatchingOptions: Sendable {
    /// Which pairs are matched.
    public var pairs = PairSelectionOptions()
    /// Descriptor matching (ratio test, mutual check).
    public var descriptors = MatchOptions()
    /// Geometric verification.
    public var twoView = TwoViewOptions()
    /// Pairs with fewer putative matches are not verified. Default 20.
    public var minPutativeMatches = 20

    public init() {}

    public func validate() throws {
        try pairs.validate()
        try descriptors.validate()
        try twoView.validate()
    }
}

/// Stage 3: matches the selected pairs and keeps the geometrically verified ones.
public enum PairMatching {
    /// Matches and verifies pairs in parallel; returns the verified graph.
    /// - Parameters:
    ///   - features: per image (all non-nil: callers drop failed images first).
    ///   - calibration: per image, its calibration matrix when the focal length is trusted (E is
    ///     then estimated alongside F), else nil.
    public static func run(features: [FeatureSet], calibration: [Matrix3?], options: MatchingOptions,
                           threads: Int, progress: ProgressSink?) throws -> MatchGraph {
        let pairs = PairSelection.pairs(count: features.count, options: options.pairs)
        let slots = ResultSlots<MatchGraph.Edge>(count: pairs.count)
        let lock = NSLock()
        var completed = 0, cancelled = false
        // Keypoint positions once per image, not once per pair.
        let positions = features.map { set in set.keypointPositions() }
        parallelFor(pairs.count, threads: threads) { p in
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            if let edge = try? verify(i, j, features: features, positions: positions,
                                      calibration: calibration, options: options) {
                slots[p] = edge
            }
            lock.lock()
            completed += 1
            let count = completed
            lock.unlock()
            if progress?.update(stage: "matching", done: count, total: pairs.count) == false { cancelled = true }
        }
        if cancelled { throw PipelineError.cancelled }
        return MatchGraph(numImages: features.count, edges: slots.values.compactMap { $0 })
    }

    /// Matches one pair and verifies it; nil when it does not hold up.
    static func verify(_ i: Int, _ j: Int, features: [FeatureSet], positions: [[SIMD2<Double>]],
                       calibration: [Matrix3?], options: MatchingOptions) throws -> MatchGraph.Edge? {
        let matches = try DescriptorMatcher.match(features[i], features[j], options: options.descriptors)
            .map { SIMD2($0.index1, $0.index2) }
        guard matches.count >= options.minPutativeMatches else { return nil }
        let points1 = matches.map { positions[i][Int($0.x)] }
        let points2 = matches.map { positions[j][Int($0.y)] }
        let geometry = try TwoViewEstimator.estimate(points1: points1, points2: points2,
                                                     K1: calibration[i]?.rowMajor, K2: calibration[j]?.rowMajor,
                                                     options: options.twoView)
        guard geometry.configuration != .degenerate else { return nil }
        let inliers = zip(matches, geometry.inlierMask).filter(\.1).map(\.0)
        return MatchGraph.Edge(first: i, second: j, matches: inliers,
                               configuration: geometry.configuration, fundamental: geometry.F)
    }
}
