import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of prior-guided matching: pairs chosen by pose priors are matched inside the band
/// around the epipolar lines the priors predict, at a fraction of the full descriptor product.
public struct PriorGuidanceOptions: Sendable {
    /// Default true.
    public var enabled = true
    /// Share of the priors' pairs matched in full first (at least 8), whose verified matches
    /// measure how far the priors' epipolar lines are from the truth. Default 0.1.
    public var sampleFraction = 0.1
    /// The band is this multiple of the 95th percentile of those distances. Default 2: twice the
    /// distance that 95 of 100 verified matches keep covers the rest of the tail and pairs a
    /// little worse than the sample's.
    public var bandFactor = 2.0
    /// The band is at least this multiple of the verification threshold: priors closer than
    /// that still leave the keypoints' own noise. Default 4.
    public var minBandInThresholds = 4.0
    /// A band wider than this share of the image diagonal saves little: every pair is then
    /// matched in full. Default 0.25.
    public var maxBandFraction = 0.25

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard (0...1).contains(sampleFraction), bandFactor >= 1, minBandInThresholds > 0, maxBandFraction > 0 else {
            throw PipelineError.invalidOption(
                "prior guidance: sampleFraction in [0, 1], bandFactor >= 1, minBandInThresholds > 0, maxBandFraction > 0")
        }
    }
}

/// How the priors guide a pair list's matching: a fundamental matrix per pair from the priors'
/// poses and intrinsics, the band measured on a sample of pairs matched in full, and those
/// pairs' putative matches (not matched twice).
package struct PriorGuidance {
    /// Minimum sample, whatever the fraction: fewer pairs do not measure a distribution.
    static let minSamplePairs = 8
    /// Verified distances the band needs; fewer and every pair is matched in full.
    static let minSampleMatches = 100

    /// Per pair, its F from the priors (row-major, x2ᵀ F x1 = 0 in pixels) when it is matched
    /// inside the band; nil when it is matched in full.
    package var fundamental: [[Double]?]
    /// The band's half-width in pixels; nil when the priors guide nothing.
    var bandPixels: Double?
    /// Putative matches of the pairs matched in full to measure the band, by pair index.
    var putative: [Int: [SIMD2<Int32>]]

    /// No guidance: every pair matched in full.
    package static func none(pairCount: Int) -> PriorGuidance {
        PriorGuidance(fundamental: Array(repeating: nil, count: pairCount), bandPixels: nil, putative: [:])
    }

    /// Measures the band on a sample of `pairs` and gives every pair with two priors its F.
    package static func measure(pairs: [SIMD2<Int32>], views: [PairSelection.PriorView?], features: [FeatureSet],
                        positions: [[SIMD2<Double>]], calibration: [Matrix3?], options: MatchingOptions,
                        threads: Int) -> PriorGuidance {
        let guidance = options.priorGuidance
        let fundamentals = pairs.map { pair -> [Double]? in
            guard let a = views[Int(pair.x)], let b = views[Int(pair.y)] else { return nil }
            return fundamentalMatrix(from: a, to: b)
        }
        let guided = pairs.indices.filter { fundamentals[$0] != nil }
        guard guidance.enabled, !guided.isEmpty else { return .none(pairCount: pairs.count) }
        let sampleCount = min(guided.count, max(minSamplePairs, Int((guidance.sampleFraction * Double(guided.count)).rounded())))
        let sample = (0..<sampleCount).map { guided[$0 * guided.count / sampleCount] }

        let putativeSlots = ResultSlots<[SIMD2<Int32>]>(count: sample.count)
        let distanceSlots = ResultSlots<[Double]>(count: sample.count)
        parallelFor(sample.count, threads: threads) { s in
            let p = sample[s], i = Int(pairs[p].x), j = Int(pairs[p].y)
            let matches = PairMatching.putativeMatches(i, j, features: features, options: options)
            putativeSlots[s] = matches
            guard let edge = try? PairMatching.verify(i, j, matches: matches, positions: positions,
                                                      calibration: calibration, options: options),
                  edge.configuration.hasGeneralMotion else { return }
            distanceSlots[s] = edge.matches.map { m in
                epipolarDistance(fundamentals[p]!, positions[i][Int(m.x)], positions[j][Int(m.y)])
            }
        }
        var putative: [Int: [SIMD2<Int32>]] = [:]
        for (s, p) in sample.enumerated() { putative[p] = putativeSlots[s] ?? [] }
        let distances = distanceSlots.values.compactMap { $0 }.flatMap { $0 }.sorted()
        var unguided = PriorGuidance.none(pairCount: pairs.count)
        unguided.putative = putative
        guard distances.count >= minSampleMatches else { return unguided }
        let q95 = distances[min(distances.count - 1, Int(0.95 * Double(distances.count)))]
        let band = max(guidance.bandFactor * q95, guidance.minBandInThresholds * options.twoView.maxErrorPixels)
        let diagonals = features.map { hypot(Double($0.imageWidth), Double($0.imageHeight)) }
        guard band <= guidance.maxBandFraction * (diagonals.median() ?? 0) else { return unguided }
        var fundamental = fundamentals
        for p in sample { fundamental[p] = nil }
        return PriorGuidance(fundamental: fundamental, bandPixels: band, putative: putative)
    }

    /// F of the pair (a, b) from their prior poses and intrinsics; nil without intrinsics or
    /// without a baseline.
    static func fundamentalMatrix(from a: PairSelection.PriorView, to b: PairSelection.PriorView) -> [Double]? {
        guard let ka = a.calibration, let kb = b.calibration else { return nil }
        let bFromA = b.camFromWorld * a.camFromWorld.inverse
        let t = bFromA.translation
        guard length(t) > 0 else { return nil }
        let cross = Matrix3(rows: SIMD3(0, -t.z, t.y), SIMD3(t.z, 0, -t.x), SIMD3(-t.y, t.x, 0))
        let essential = cross * bFromA.rotation
        return (inverseCalibration(kb).transposed * essential * inverseCalibration(ka)).rowMajor
    }

    /// The inverse of a calibration matrix [fx s cx; 0 fy cy; 0 0 1].
    static func inverseCalibration(_ k: Matrix3) -> Matrix3 {
        let fx = k.rows.0.x, s = k.rows.0.y, cx = k.rows.0.z, fy = k.rows.1.y, cy = k.rows.1.z
        return Matrix3(rows: SIMD3(1 / fx, -s / (fx * fy), (s * cy - cx * fy) / (fx * fy)),
                       SIMD3(0, 1 / fy, -cy / fy), SIMD3(0, 0, 1))
    }

    /// The larger of the two points' distances from each other's epipolar line, in pixels.
    static func epipolarDistance(_ f: [Double], _ x1: SIMD2<Double>, _ x2: SIMD2<Double>) -> Double {
        let inB = SIMD3(f[0] * x1.x + f[1] * x1.y + f[2], f[3] * x1.x + f[4] * x1.y + f[5], f[6] * x1.x + f[7] * x1.y + f[8])
        let inA = SIMD3(f[0] * x2.x + f[3] * x2.y + f[6], f[1] * x2.x + f[4] * x2.y + f[7], f[2] * x2.x + f[5] * x2.y + f[8])
        let residual = abs(inB.x * x2.x + inB.y * x2.y + inB.z)
        return max(residual / max(hypot(inB.x, inB.y), 1e-300), residual / max(hypot(inA.x, inA.y), 1e-300))
    }
}
