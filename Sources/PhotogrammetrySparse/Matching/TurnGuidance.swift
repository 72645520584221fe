import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Guided matching along the turn: in a capture taken in order (a turntable, a walk around), the
/// verified pairs of nearby frames whose images are texture-poor are matched again inside the
/// epipolar band of their first estimate with a looser ratio test, and verified again.
///
/// A texture-poor surface repeats its few gradients, so a true match often has a close rival
/// elsewhere in the image and fails Lowe's ratio at 0.8. Between neighbouring frames of a turn the
/// first estimate's epipolar geometry rules most rivals out: inside a band around each line the
/// ratio compares only geometric rivals, and a looser ratio admits the matches the surface's
/// repetition hid (docs/benchmarks.md).
public struct TurnGuidance: Sendable, Equatable {
    /// Whether the pass runs. Default false: it multiplies the verified matches of texture-poor
    /// neighbours, but end to end the band's extra matches cost accuracy (lowtex-orbit under its
    /// masks: AUC@5 95.5 against 97.5; lowtex-turntable under its masks: 93.4 against 94.3;
    /// docs/benchmarks.md).
    public var enabled = false
    /// Frames at most this many apart in capture order (the last and first frame count as
    /// neighbours) are guided. Default 2.
    public var window = 2
    /// Largest ratio of best to second-best distance among the band's candidates. Default 0.9.
    public var maxRatio: Float = 0.9
    /// Half-width of the band around each epipolar line, as a fraction of verification's largest
    /// error. Default 0.5.
    public var bandFraction = 0.5
    /// The share of consecutive frames verified that makes the images a sequence. Default 0.8.
    public var sequenceFraction = 0.8
    /// Only pairs whose two images hold fewer features than this at the default contrast are
    /// guided: texture-poor frames; textured captures keep their matches. Default
    /// ``SIFTOptions/workingFeatureCount``.
    public var maxTextureFeatures = SIFTOptions.workingFeatureCount

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard window >= 1, maxRatio > 0, maxRatio <= 1, bandFraction > 0, bandFraction <= 1,
              (0...1).contains(sequenceFraction), maxTextureFeatures >= 0 else {
            throw PipelineError.invalidOption(
                "turn guidance: window >= 1, ratio and band fraction in (0, 1], sequence fraction in [0, 1]")
        }
    }

    /// Whether images `i` and `j` of `count` are at most ``window`` apart in capture order.
    func areNeighbours(_ i: Int, _ j: Int, count: Int) -> Bool {
        let gap = abs(i - j)
        return min(gap, count - gap) <= window
    }

    /// The edges of the pairs to guide: nearby, texture-poor, with general motion and an F;
    /// none unless the graph is a sequence.
    func candidates(_ edges: [MatchGraph.Edge], features: [FeatureSet]) -> [Int] {
        guard enabled else { return [] }
        let graph = MatchGraph(numImages: features.count, edges: edges)
        guard graph.consecutiveFraction >= sequenceFraction else { return [] }
        let poor = features.map { $0.countAtBaseThreshold < maxTextureFeatures }
        return edges.indices.filter { e in
            let edge = edges[e]
            return poor[edge.first] && poor[edge.second] && areNeighbours(edge.first, edge.second, count: features.count)
                && edge.configuration.hasGeneralMotion && edge.fundamental.count == 9
        }
    }
}

extension PairMatching {
    /// `edges` with the pairs along the turn (``TurnGuidance``) matched again in their epipolar band
    /// and verified again, each kept when it gains inliers and keeps general motion; and how many
    /// were guided and improved.
    static func guideAlongTheTurn(_ edges: [MatchGraph.Edge], features: [FeatureSet], positions: [[SIMD2<Double>]],
                                  calibration: [Matrix3?], staticFeatures: StaticFeatures, options: MatchingOptions,
                                  threads: Int) -> (edges: [MatchGraph.Edge], guided: Int, improved: Int) {
        let guidance = options.turnGuidance
        let chosen = guidance.candidates(edges, features: features)
        guard !chosen.isEmpty else { return (edges, 0, 0) }
        var descriptors = options.descriptors
        descriptors.maxRatio = guidance.maxRatio
        let band = guidance.bandFraction * options.twoView.maxErrorPixels
        let slots = ResultSlots<MatchGraph.Edge>(count: chosen.count)
        parallelFor(chosen.count, threads: threads) { c in
            let edge = edges[chosen[c]]
            let i = edge.first, j = edge.second
            guard let guided = try? DescriptorMatcher.matchGuided(features[i], features[j], fundamental: edge.fundamental,
                                                                  maxErrorPx: band, options: descriptors) else { return }
            let matches = staticFeatures.filter(guided.map { SIMD2($0.index1, $0.index2) }, first: i, second: j)
            guard matches.count > edge.matches.count,
                  let verified = try? verify(i, j, matches: matches, positions: positions, calibration: calibration,
                                             options: options),
                  verified.configuration.hasGeneralMotion, verified.matches.count > edge.matches.count else { return }
            slots[c] = verified
        }
        var result = edges
        var improved = 0
        for (c, e) in chosen.enumerated() {
            if let better = slots[c] {
                result[e] = better
                improved += 1
            }
        }
        return (result, chosen.count, improved)
    }
}
