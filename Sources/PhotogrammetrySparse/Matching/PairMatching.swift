import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of stage 3: which pairs, how descriptors match, how pairs are verified.
public struct MatchingOptions: Sendable {
    /// Which pairs are matched.
    public var pairs = PairSelectionOptions()
    /// Descriptor matching (ratio test, mutual check).
    public var descriptors = MatchOptions()
    /// Putative matches that turned unlike the rest of their pair (a symmetric pattern's
    /// twins) are dropped before verification.
    public var orientation = OrientationConsistency()
    /// Geometric verification.
    public var twoView = TwoViewOptions()
    /// Pairs with fewer putative matches are not verified. Default 20.
    public var minPutativeMatches = 20
    /// Static features of a fixed camera (turntable captures).
    public var staticFeatures = StaticFeatureOptions()
    /// Fixed-camera test for masked captures, whose masks hide the static background. Default on.
    public var stillBackground = StillBackgroundOptions()
    /// Verified pairs with fewer inliers than this are matched again inside the epipolar band
    /// of their F (guided matching) and verified again; 0 turns it off. Default 0 (off): it
    /// multiplies the inliers of weak pairs, but the band admits matches up to the verification
    /// threshold off their lines, and end to end it costs accuracy and merges (docs/benchmarks.md).
    public var guidedMatchingBelowInliers = 0
    /// Nearby texture-poor frames of a sequence are matched again inside their epipolar band
    /// with a looser ratio test.
    public var turnGuidance = TurnGuidance()
    /// Pairs chosen by pose priors are matched inside the band around the priors' epipolar lines.
    public var priorGuidance = PriorGuidanceOptions()
    /// The second pass, once poses exist (``PairMatching/rematch(_:reconstruction:features:calibration:options:threads:progress:)``).
    public var rematch = RematchOptions()

    public init() {}

    public func validate() throws {
        try pairs.validate()
        try descriptors.validate()
        try orientation.validate()
        try twoView.validate()
        try staticFeatures.validate()
        try stillBackground.validate()
        try rematch.validate()
        try priorGuidance.validate()
        try turnGuidance.validate()
        if guidedMatchingBelowInliers < 0 {
            throw PipelineError.invalidOption("matching: guidedMatchingBelowInliers must be >= 0")
        }
    }
}

/// Options of the second matching pass: transitive and spatial pairs.
public struct RematchOptions: Sendable {
    /// Match transitive pairs (i–j, j–k verified, i–k never tried). Default true.
    public var transitive = true
    /// Transitive: edges with fewer verified matches do not link. Default 0 (every edge, as COLMAP).
    public var transitiveMinMatches = 0
    /// Transitive: at most this many pairs per image, the best supported first. Default 15, half
    /// of retrieval's neighbours, so the pass costs at most half the first; on pavilion-outer the
    /// whole transitive set after retrieval is 2.6 pairs per image and the cap does not bind.
    public var transitiveMaxPerImage = 15
    /// Match spatial pairs (registered cameras that frame the same points). Default true.
    public var spatial = true
    /// Spatial: which cameras count as neighbours.
    public var spatialPairs = SpatialPairOptions()

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard transitiveMinMatches >= 0, transitiveMaxPerImage >= 1 else {
            throw PipelineError.invalidOption("rematch: transitiveMinMatches >= 0 and transitiveMaxPerImage >= 1")
        }
        try spatialPairs.validate()
    }
}

/// Stage 3: matches the selected pairs and keeps the geometrically verified ones.
///
/// Three steps: putative matches for every selected pair; static features (a fixed camera over
/// a turning object) found from those and removed; geometric verification of what is left.
/// Once poses exist, ``extend(_:pairs:features:calibration:options:threads:progress:)`` matches
/// further pairs (transitive, spatial) into the same graph.
public enum PairMatching {
    /// The stage's outcome: the verified graph, what static-feature detection found and every
    /// pair tried so far.
    public struct Result: Sendable {
        public var graph: MatchGraph
        public var staticFeatures: StaticFeatures
        /// Every pair matched so far, verified or not, as (min, max): a later pass skips them.
        public var tried: Set<SIMD2<Int32>> = []
        /// How the first pass chose its pairs.
        public var strategy: PairSelectionOptions.Strategy = .exhaustive
    }

    /// Chooses pairs (``PairSelection``), then matches and verifies them in parallel.
    /// - Parameters:
    ///   - features: per image (all non-nil: callers drop failed images first).
    ///   - calibration: per image, its calibration matrix when the focal length is trusted (E is
    ///     then estimated alongside F), else nil.
    ///   - priorViews: per image, its view from the pose priors (nil without one); nil when the
    ///     run has no priors.
    public static func run(features: [FeatureSet], calibration: [Matrix3?], options: MatchingOptions,
                           threads: Int, progress: ProgressSink?, priorViews: [PairSelection.PriorView?]? = nil) throws -> Result {
        let start = DispatchTime.now()
        let selection = try PairSelection.select(features: features, options: options.pairs, threads: threads,
                                                 priorViews: priorViews)
        var how = selection.strategy.rawValue
        if selection.strategy == .priors {
            how += String(format: " (%d most overlapping views each)", options.pairs.priorNeighbours)
        }
        if selection.strategy == .retrieval {
            how += String(format: " (%d neighbours%@, %.1f s)", options.pairs.retrievalNeighbours,
                          selection.isSequence ? " + sequential" : "", seconds(since: start))
        }
        progress?.event(.pairsSelected, "pairs: \(selection.pairs.count) of \(features.count * (features.count - 1) / 2), \(how)")
        var guidance: PriorGuidance?
        if selection.strategy == .priors, let priorViews {
            guidance = PriorGuidance.measure(pairs: selection.pairs, views: priorViews, features: features,
                                             positions: features.map { $0.keypointPositions() }, calibration: calibration,
                                             options: options, threads: threads)
        }
        var result = try match(selection.pairs, features: features, calibration: calibration, staticFeatures: nil,
                               options: options, threads: threads, progress: progress, guidance: guidance)
        result.strategy = selection.strategy
        return result
    }

    /// Matches and verifies the pairs of `pairs` not tried before and adds the verified ones to
    /// the graph; existing edges are kept as they are. Static features are those the first pass
    /// found (not detected again).
    public static func extend(_ previous: Result, pairs: [SIMD2<Int32>], features: [FeatureSet], calibration: [Matrix3?],
                              options: MatchingOptions, threads: Int, progress: ProgressSink?) throws -> Result {
        var fresh = PairSet()
        for pair in pairs where !previous.tried.contains(SIMD2(min(pair.x, pair.y), max(pair.x, pair.y))) {
            fresh.add(Int(pair.x), Int(pair.y))
        }
        let added = try match(fresh.pairs, features: features, calibration: calibration,
                              staticFeatures: previous.staticFeatures, options: options, threads: threads,
                              progress: progress)
        var result = previous
        result.staticFeatures = added.staticFeatures
        result.graph.edges += added.graph.edges
        result.tried.formUnion(added.tried)
        return result
    }

    /// Matches and verifies `pairs` again with `features`, in which every image keeps its earlier
    /// keypoints at their indices (``FeatureSet/addingFinerFeatures(imageURL:maskURL:keepRect:options:)``),
    /// so that the other edges stay valid; a pair's new edge replaces its old one when it holds
    /// more matches. Static features are those the first pass found.
    public static func rematchWithFeatures(_ previous: Result, pairs: [SIMD2<Int32>], features: [FeatureSet],
                                           calibration: [Matrix3?], options: MatchingOptions, threads: Int,
                                           progress: ProgressSink?) throws -> Result {
        let again = try match(pairs, features: features, calibration: calibration, staticFeatures: previous.staticFeatures,
                              options: options, threads: threads, progress: progress)
        var result = previous
        result.staticFeatures = again.staticFeatures
        var index = [SIMD2<Int>: Int]()
        for (e, edge) in result.graph.edges.enumerated() { index[SIMD2(edge.first, edge.second)] = e }
        for edge in again.graph.edges {
            if let e = index[SIMD2(edge.first, edge.second)] {
                if edge.matches.count > result.graph.edges[e].matches.count { result.graph.edges[e] = edge }
            } else {
                result.graph.edges.append(edge)
            }
        }
        result.tried.formUnion(again.tried)
        return result
    }

    /// The second pass: transitive pairs of the verified graph and, given a model, spatial pairs of
    /// its registered cameras, matched and verified into the graph (``extend(_:pairs:features:calibration:options:threads:progress:)``).
    /// - Parameters:
    ///   - reconstruction: the first sparse model, its images numbered index + 1 (as the
    ///     pipeline numbers them); nil for transitive pairs only.
    public static func rematch(_ previous: Result, reconstruction: Reconstruction?, features: [FeatureSet],
                               calibration: [Matrix3?], options: MatchingOptions, threads: Int,
                               progress: ProgressSink?) throws -> Result {
        var pairs: [SIMD2<Int32>] = []
        var transitiveCount = 0, spatialCount = 0
        if options.rematch.transitive {
            let found = PairSelection.transitivePairs(graph: previous.graph, tried: previous.tried,
                                                      minMatches: options.rematch.transitiveMinMatches,
                                                      maxPerImage: options.rematch.transitiveMaxPerImage)
            transitiveCount = found.count
            pairs += found
        }
        if options.rematch.spatial, let reconstruction {
            let found = PairSelection.spatialPairs(reconstruction: reconstruction, tried: previous.tried,
                                                   options: options.rematch.spatialPairs)
            spatialCount = found.count
            pairs += found
        }
        progress?.event(.rematching, "re-matching: \(transitiveCount) transitive and \(spatialCount) spatial pairs")
        return try extend(previous, pairs: pairs, features: features, calibration: calibration, options: options,
                          threads: threads, progress: progress)
    }

    /// Putative matches, static features (detected unless given) and verification of `pairs`.
    package static func match(_ pairs: [SIMD2<Int32>], features: [FeatureSet], calibration: [Matrix3?],
                      staticFeatures given: StaticFeatures?, options: MatchingOptions,
                      threads: Int, progress: ProgressSink?, guidance: PriorGuidance? = nil) throws -> Result {
        // Keypoint positions and angles once per image, not once per pair.
        let positions = features.map { set in set.keypointPositions() }
        let angles = features.map { set in set.keypoints.map(\.w) }
        let counter = ProgressCounter(stage: "matching", total: 2 * pairs.count, sink: progress)
        let start = DispatchTime.now()

        let guidance = guidance ?? .none(pairCount: pairs.count)
        let putativeSlots = ResultSlots<[SIMD2<Int32>]>(count: pairs.count)
        parallelFor(pairs.count, threads: threads) { p in
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            if let given = guidance.putative[p] {
                putativeSlots[p] = given
            } else if let fundamental = guidance.fundamental[p], let band = guidance.bandPixels {
                putativeSlots[p] = (try? DescriptorMatcher.matchGuided(features[i], features[j], fundamental: fundamental,
                                                                      maxErrorPx: band, options: options.descriptors)
                    .map { SIMD2($0.index1, $0.index2) }) ?? []
            } else {
                putativeSlots[p] = putativeMatches(i, j, features: features, options: options)
            }
            counter.step()
        }
        try counter.checkCancelled()
        let putative = putativeSlots.values.map { $0 ?? [] }
        let putativeSeconds = seconds(since: start)

        let imageSizes = features.map { SIMD2($0.imageWidth, $0.imageHeight) }
        // Given static features come from an earlier pass, before finer features grew the keypoint lists.
        let staticFeatures = given?.extended(pairs: pairs, matches: putative, positions: positions,
                                             imageSizes: imageSizes, options: options.staticFeatures)
            ?? StaticFeatures.detect(pairs: pairs, matches: putative, positions: positions,
                                     imageSizes: imageSizes, options: options.staticFeatures)
        // Twins of symmetric patterns out: each pair keeps the matches that turned alike, the
        // cluster the capture's image angles agree with. After the static features, which a
        // fixed camera sees unturned however far the turntable turned the object.
        let moving = pairs.indices.map { p in staticFeatures.filter(putative[p], first: Int(pairs[p].x), second: Int(pairs[p].y)) }
        let turns = options.orientation.isOn
            ? pairs.indices.map { p in
                OrientationConsistency.turns(moving[p], angles1: angles[Int(pairs[p].x)], angles2: angles[Int(pairs[p].y)])
            }
            : moving.map { _ in [] }
        let expected = options.orientation.expectedTurns(pairs: pairs, turns: turns, numImages: features.count)

        let slots = ResultSlots<MatchGraph.Edge>(count: pairs.count)
        let rematchedInFull = ResultSlots<Bool>(count: pairs.count)
        parallelFor(pairs.count, threads: threads) { p in
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            let matches = options.orientation.filter(moving[p], turns: turns[p], expected: expected[p])
            var edge = try? verify(i, j, matches: matches, positions: positions, calibration: calibration, options: options)
            if edge == nil, guidance.bandPixels != nil, guidance.fundamental[p] != nil {
                // The priors were wrong for this pair (or it does not overlap): the full product decides.
                rematchedInFull[p] = true
                let full = staticFeatures.filter(putativeMatches(i, j, features: features, options: options), first: i, second: j)
                let fullTurns = options.orientation.isOn
                    ? OrientationConsistency.turns(full, angles1: angles[i], angles2: angles[j]) : []
                edge = try? verify(i, j, matches: options.orientation.filter(full, turns: fullTurns, expected: expected[p]),
                                   positions: positions, calibration: calibration, options: options)
            }
            if var edge {
                if edge.matches.count < options.guidedMatchingBelowInliers,
                   let guided = guide(edge, features: features, positions: positions, calibration: calibration,
                                      staticFeatures: staticFeatures, options: options) {
                    edge = guided
                }
                slots[p] = edge
            }
            counter.step()
        }
        try counter.checkCancelled()
        let turn = guideAlongTheTurn(slots.values.compactMap { $0 }, features: features, positions: positions,
                                     calibration: calibration, staticFeatures: staticFeatures, options: options,
                                     threads: threads)
        let edges = turn.edges
        var guided = turn.guided > 0 ? "; \(turn.improved) of \(turn.guided) pairs along the turn gained matches in their epipolar band" : ""
        if let band = guidance.bandPixels {
            let count = guidance.fundamental.compactMap { $0 }.count
            guided += String(format: "; %d pairs in the priors' epipolar band of %.1f px (measured on %d pairs), %d of them re-matched in full",
                            count, band, guidance.putative.count, rematchedInFull.values.compactMap { $0 }.count)
        }
        progress?.event(.matchingFinished, String(format: "matching: %d pairs, %d verified; putative %.1f s, verification %.1f s%@",
                              pairs.count, edges.count, putativeSeconds, seconds(since: start) - putativeSeconds, guided))
        return Result(graph: MatchGraph(numImages: features.count, edges: edges), staticFeatures: staticFeatures,
                      tried: Set(pairs.map { SIMD2(min($0.x, $0.y), max($0.x, $0.y)) }))
    }

    /// The putative matches of the pair (i, j) over all descriptors.
    static func putativeMatches(_ i: Int, _ j: Int, features: [FeatureSet], options: MatchingOptions) -> [SIMD2<Int32>] {
        (try? DescriptorMatcher.match(features[i], features[j], options: options.descriptors)
            .map { SIMD2($0.index1, $0.index2) }) ?? []
    }

    /// Wall seconds since `start`.
    package static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// The edge re-matched inside the epipolar band of its F and verified again, when that
    /// keeps general motion and gives more inliers; else nil.
    static func guide(_ edge: MatchGraph.Edge, features: [FeatureSet], positions: [[SIMD2<Double>]],
                      calibration: [Matrix3?], staticFeatures: StaticFeatures,
                      options: MatchingOptions) -> MatchGraph.Edge? {
        let i = edge.first, j = edge.second
        guard edge.configuration.hasGeneralMotion, edge.fundamental.count == 9,
              let guided = try? DescriptorMatcher.matchGuided(
                  features[i], features[j], fundamental: edge.fundamental, maxErrorPx: options.twoView.maxErrorPixels,
                  options: options.descriptors) else { return nil }
        let matches = staticFeatures.filter(guided.map { SIMD2($0.index1, $0.index2) }, first: i, second: j)
        guard matches.count > edge.matches.count,
              let verified = try? verify(i, j, matches: matches, positions: positions, calibration: calibration,
                                         options: options),
              verified.configuration.hasGeneralMotion, verified.matches.count > edge.matches.count else { return nil }
        return verified
    }

    /// Verifies one pair's putative matches; nil when they do not hold up.
    static func verify(_ i: Int, _ j: Int, matches: [SIMD2<Int32>], positions: [[SIMD2<Double>]],
                       calibration: [Matrix3?], options: MatchingOptions) throws -> MatchGraph.Edge? {
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
