import Foundation
import PhotogrammetryCore

/// Keeps the putative matches of a pair whose keypoints turned alike, choosing among a pair's
/// clusters of turns the one the rest of the capture agrees with.
///
/// SIFT describes a patch in the frame of its dominant gradient, so a pattern with rotational
/// symmetry matches its own turned copy: book-matched marble (pavilion-outer's walls) is
/// symmetric under a half turn. Such twins sit at 180° from the pair's true turn, and a planar wall's twins are consistent among themselves,
/// so the fundamental matrix admits them: pavilion-outer frames 80-81 keep 159 twins among 412
/// inliers, and in frames 77-83 the twins are 164 of 169, so a relative pose from them turns
/// the camera by 179° where the frames between say 10°.
///
/// Between two views of one scene the turn is nearly the same everywhere: over the verified
/// inliers of consecutive and near pairs of templeRing, fountain-P11, synthetic-orbit,
/// turntable-temple, dtu-scan24, synthetic-room and pavilion-outer, 99 % lie within 12-28° of
/// their pair's dominant turn, and those beyond 45° are as many as those beyond 90° (outliers,
/// not a spread). And the turns of all pairs are differences of one angle per image (up to
/// the small holonomy of overlapping views), so the pairs where twins do not dominate, most of
/// them, tell each image's angle (``imageAngles(pairs:modes:numImages:tolerance:)``), and where
/// a pair's majority disagrees with those angles and a minority agrees, the minority is kept.
public struct OrientationConsistency: Sendable, Equatable {
    /// Largest difference, in degrees, between a match's turn and its pair's turn; 0 turns the
    /// filter off. Default 135: a half-turn twin sits at 180°, while the true matches of a pair
    /// can spread far wider than one pair's 99 % (28°) where an object's top turns with the
    /// turntable and its sides do not (lowtex-turntable loses its poses at 45°; docs/benchmarks.md).
    public var maxDeviationDeg = 135.0

    /// Pairs and images agree on a turn within this many degrees: above the 28° that holds 99 %
    /// of one pair's true matches everywhere measured.
    static let agreementDeg = 45.0

    /// Creates the default options.
    public init() {}

    /// Whether the filter runs.
    public var isOn: Bool { maxDeviationDeg > 0 && maxDeviationDeg < 180 }

    /// Throws when the deviation is outside 0-180°.
    public func validate() throws {
        guard maxDeviationDeg >= 0, maxDeviationDeg <= 180 else {
            throw PipelineError.invalidOption("matching: maxDeviationDeg must be in 0...180")
        }
    }

    /// The turn of each match in degrees, `angles2[j] - angles1[i]` (keypoint angles in radians).
    public static func turns(_ matches: [SIMD2<Int32>], angles1: [Float], angles2: [Float]) -> [Double] {
        matches.map { Double(angles2[Int($0.y)] - angles1[Int($0.x)]) * 180 / .pi }
    }

    /// The matches whose turn lies within ``maxDeviationDeg`` of `expected` (degrees); all of them
    /// when the filter is off or no turn is expected.
    public func filter(_ matches: [SIMD2<Int32>], turns: [Double], expected: Double?) -> [SIMD2<Int32>] {
        guard isOn, let expected else { return matches }
        return zip(matches, turns).filter { abs(Self.wrapped($0.1 - expected)) <= maxDeviationDeg }.map(\.0)
    }

    /// The turn a pair's matches are kept around, for the pairs whose own dominant turn is more
    /// than 90° from the turn their images' angles imply while a cluster of their matches within
    /// 45° of it (at least ``minMatches``, and a tenth of the dominant cluster) agrees with the
    /// angles: that cluster's turn. Nil for every other pair, whose matches all stay: a real
    /// half turn exists too (an object's top seen from opposite sides of an orbit turns by
    /// nearly 180° while its sides do not), and dropping every match 135° from a pair's own turn
    /// costs accuracy (cutout-orbit; docs/benchmarks.md).
    ///
    /// The images' angles only choose between the pair's own clusters, never replace them:
    /// where views look all around (a room walked through, floor and ceiling in view), turns
    /// add up around a loop to the solid angle it encloses rather than to zero, and imposing
    /// the angles' turn costs accuracy (synthetic-room; docs/benchmarks.md).
    public func expectedTurns(pairs: [SIMD2<Int32>], turns: [[Double]], numImages: Int) -> [Double?] {
        guard isOn else { return pairs.map { _ in nil } }
        let modes = turns.map { $0.count >= Self.minMatches ? Self.dominantTurn($0) : nil }
        let angles = Self.imageAngles(pairs: pairs, modes: modes, numImages: numImages, tolerance: Self.agreementDeg)
        return pairs.indices.map { p in
            guard let own = modes[p],
                  let a = angles[Int(pairs[p].x)], let b = angles[Int(pairs[p].y)] else { return nil }
            let implied = Self.wrapped(b - a)
            guard abs(Self.wrapped(own.turn - implied)) > 2 * Self.agreementDeg,
                  let near = Self.dominantTurn(turns[p].filter { abs(Self.wrapped($0 - implied)) <= Self.agreementDeg }),
                  near.support >= Self.minMatches, 10 * near.support >= own.support else { return nil }
            return near.turn
        }
    }

    /// Pairs with fewer putative matches tell no turn; verification rejects them anyway below
    /// its 15 inliers.
    static let minMatches = 15

    /// One angle per image (degrees; nil for an image no pair with a turn reaches) such that
    /// `angle[second] - angle[first]` is each pair's turn.
    ///
    /// A maximum spanning tree over the pairs, weighed by the support of their dominant turn,
    /// gives the first angles (strong pairs are the ones twins do not dominate); a few
    /// reweighted passes then let every image take the circular mean of what its pairs within
    /// `tolerance` of agreement say, so that one wrong tree edge is outvoted.
    static func imageAngles(pairs: [SIMD2<Int32>], modes: [(turn: Double, support: Int)?],
                            numImages: Int, tolerance: Double) -> [Double?] {
        var angles = [Double?](repeating: nil, count: numImages)
        var adjacency = [[(pair: Int, other: Int)]](repeating: [], count: numImages)
        for (p, pair) in pairs.enumerated() where modes[p] != nil {
            adjacency[Int(pair.x)].append((p, Int(pair.y)))
            adjacency[Int(pair.y)].append((p, Int(pair.x)))
        }
        // The angle of `other` that pair p implies from image `from` at `angle`.
        func implied(_ p: Int, from: Int, angle: Double) -> Double {
            let turn = modes[p]!.turn
            return Int(pairs[p].x) == from ? angle + turn : angle - turn
        }
        // Kruskal's maximum spanning tree, strongest pair first, then angles along it.
        var parent = Array(0..<numImages)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        var tree = [[(pair: Int, other: Int)]](repeating: [], count: numImages)
        let strongestFirst = pairs.indices.filter { modes[$0] != nil }
            .sorted { (modes[$0]!.support, -$0) > (modes[$1]!.support, -$1) }
        for p in strongestFirst {
            let a = Int(pairs[p].x), b = Int(pairs[p].y)
            let (ra, rb) = (root(a), root(b))
            guard ra != rb else { continue }
            parent[ra] = rb
            tree[a].append((p, b))
            tree[b].append((p, a))
        }
        for start in 0..<numImages where angles[start] == nil && !tree[start].isEmpty {
            angles[start] = 0
            var queue = [start], head = 0
            while head < queue.count {
                let i = queue[head]
                head += 1
                for (p, other) in tree[i] where angles[other] == nil {
                    angles[other] = implied(p, from: i, angle: angles[i]!)
                    queue.append(other)
                }
            }
        }
        for _ in 0..<Self.refinementPasses {
            var refined = angles
            for i in 0..<numImages {
                guard let current = angles[i] else { continue }
                var sum = SIMD2<Double>.zero
                for (p, other) in adjacency[i] {
                    guard let known = angles[other] else { continue }
                    let vote = implied(p, from: other, angle: known)
                    guard abs(wrapped(vote - current)) <= tolerance else { continue }
                    let radians = vote * .pi / 180
                    sum += Double(modes[p]!.support) * SIMD2(cos(radians), sin(radians))
                }
                if sum != .zero { refined[i] = atan2(sum.y, sum.x) * 180 / .pi }
            }
            angles = refined
        }
        return angles
    }

    /// Reweighted passes after the spanning tree; angles settle within a few.
    static let refinementPasses = 5

    /// The circular mean of the turns in the most populated 30° window (three 10° bins), in
    /// degrees, and how many turns that window holds; nil for no turns.
    static func dominantTurn(_ turns: [Double]) -> (turn: Double, support: Int)? {
        guard !turns.isEmpty else { return nil }
        let bins = 36
        var histogram = [Int](repeating: 0, count: bins)
        for turn in turns { histogram[bin(turn, bins: bins)] += 1 }
        func window(_ centre: Int) -> Int {
            histogram[(centre + bins - 1) % bins] + histogram[centre] + histogram[(centre + 1) % bins]
        }
        let best = (0..<bins).max { a, b in (window(a), -a) < (window(b), -b) }!
        var sum = SIMD2<Double>.zero
        for turn in turns {
            let d = abs(bin(turn, bins: bins) - best)
            guard min(d, bins - d) <= 1 else { continue }
            let radians = turn * .pi / 180
            sum += SIMD2(cos(radians), sin(radians))
        }
        return (atan2(sum.y, sum.x) * 180 / .pi, window(best))
    }

    /// The 10° bin of a turn in degrees.
    private static func bin(_ turn: Double, bins: Int) -> Int {
        let unit = (turn.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        return min(bins - 1, Int(unit / (360 / Double(bins))))
    }

    /// An angle in degrees brought into -180...180.
    static func wrapped(_ degrees: Double) -> Double {
        let r = (degrees + 180).truncatingRemainder(dividingBy: 360)
        return (r < 0 ? r + 360 : r) - 180
    }
}
