import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The rotation of every image that the view graph's pairs agree on: robust rotation averaging
/// over the strong pairs with general motion, the reference registered poses are checked against.
///
/// A pattern with a rotational symmetry matches its own turned copy, and a wall of it matches
/// another wall of it: pavilion-outer's book-matched marble links frames 51-57 to frames 78-83
/// (25-30 frames and a quarter of the fly-by apart) by 60 pairs of 30-75 verified matches each,
/// a consistent family of twins whose relative rotations are 90-180° from the truth. Each pair
/// passes two-view verification, and the twins agree with each other in every triangle they
/// form, so no local test sees them; PnP then registers frame 52 from the twins' tracks, turned
/// by 166° against frame 51, and the model holds five such flips. Only the long way round tells:
/// the chain of consecutive frames between the two stretches, hundreds of matches a pair,
/// composes to a rotation the twins do not have. Rotation averaging (as global SfM's first step,
/// Hartley et al. 2013) finds the rotation of every image that the strong pairs agree on, and a
/// twin then misses by its symmetry's turn, far beyond what noise or a wrong focal length gives.
///
/// The mapper checks each pose it registers against these rotations (``RotationCheck``). The
/// contradicted pairs are not dropped before tracks are built: under the focal length guessed before SfM a
/// true pair can miss by more than the bound too (templeRing's frames 4-5: 174°, as the wrong
/// one of E's twisted pair wins), and dropping them costs accuracy (docs/benchmarks.md).
public struct RotationConsistency: Sendable, Equatable {
    /// Largest angle, in degrees, between a registered pose's rotations to its neighbours and the
    /// ones the averaged rotations imply (median over its pairs); a pose beyond it is refused. 0
    /// turns the check off. Default 45: a pose from half-turn twins misses by 80-180°, while true
    /// pairs stay within a few degrees, and within 20° even where the focal length is 1.5 times
    /// off.
    public var maxResidualDeg = 45.0
    /// Scale, in degrees, of the Cauchy weights in the averaging: a pair this far off weighs half
    /// as much. Default 5.
    public var cauchyScaleDeg = 5.0
    /// Share of a pair's matches its relative pose must put in front of both cameras for the pair
    /// to vote. Default 0.5: below it the pose is not the matches' own.
    public var minInFrontRatio = 0.5
    /// Verified matches a pair with general motion needs to vote in the averaging. Default 100,
    /// the points an initial pair must triangulate (``MapperOptions/initMinNumPoints``): fewer
    /// leave its rotation to chance (docs/benchmarks.md).
    public var minVoteMatches = 100
    /// Sweeps of the averaging over all images. Default 20.
    public var sweeps = 20

    /// Creates the default options.
    public init() {}

    /// Whether the check runs.
    public var isOn: Bool { maxResidualDeg > 0 }

    /// Throws when an option is out of range.
    public func validate() throws {
        guard maxResidualDeg >= 0, maxResidualDeg <= 180, cauchyScaleDeg > 0, (0...1).contains(minInFrontRatio),
              sweeps >= 1, minVoteMatches >= 0 else {
            throw PipelineError.invalidOption(
                "sparse: RotationConsistency: maxResidualDeg in 0...180, cauchyScaleDeg > 0, minInFrontRatio in 0...1, sweeps >= 1")
        }
    }

    /// Each image's rotation (cam_from_world, in an arbitrary frame per connected part of the
    /// graph) as its voting pairs agree on it; images no voting pair reaches have none.
    /// - Parameters:
    ///   - calibration: each image's intrinsics (its camera's current focal length).
    ///   - keypoints: each image's keypoint positions, pixels.
    public func averagedRotations(_ graph: MatchGraph, calibration: [Matrix3], keypoints: [[SIMD2<Double>]],
                                  threads: Int) -> [Int: Matrix3] {
        averagedRotationsAndParts(graph, calibration: calibration, keypoints: keypoints, threads: threads).rotations
    }

    /// ``averagedRotations(_:calibration:keypoints:threads:)`` and, per image, the connected part
    /// of the voting pairs it belongs to (its first image's index): rotations of different parts
    /// are in frames of their own and say nothing about each other.
    func averagedRotationsAndParts(_ graph: MatchGraph, calibration: [Matrix3], keypoints: [[SIMD2<Double>]],
                                   threads: Int) -> (rotations: [Int: Matrix3], parts: [Int: Int]) {
        averaged(votes(graph, calibration: calibration, keypoints: keypoints, threads: threads), graph: graph)
    }

    /// Matches of a pair used for its rotation, at most: 128.
    static let maxPointsPerPair = 128

    /// The rotation (cam2_from_cam1) of every pair that votes: general motion, at least
    /// ``minVoteMatches`` matches, and a pose from its fundamental matrix that puts
    /// ``minInFrontRatio`` of them in front of both cameras (else it is not the matches' own).
    func votes(_ graph: MatchGraph, calibration: [Matrix3], keypoints: [[SIMD2<Double>]],
               threads: Int) -> [(edge: Int, rotation: Matrix3)] {
        let result = ResultSlots<Matrix3>(count: graph.edges.count)
        parallelFor(graph.edges.count, threads: threads) { e in
            let edge = graph.edges[e]
            guard edge.configuration.hasGeneralMotion, edge.fundamental.count == 9,
                  !edge.matches.isEmpty, edge.matches.count >= minVoteMatches else { return }
            // An evenly spaced sample: the pose's sign needs a few dozen points, and the pairs
            // of a well-textured capture hold thousands (cost stays per pair).
            let stride = (edge.matches.count + Self.maxPointsPerPair - 1) / Self.maxPointsPerPair
            let sample = Swift.stride(from: 0, to: edge.matches.count, by: stride).map { edge.matches[$0] }
            guard let pose = try? TwoViewEstimator.relativePose(
                    fundamental: edge.fundamental, K1: calibration[edge.first].rowMajor,
                    K2: calibration[edge.second].rowMajor,
                    points1: sample.map { keypoints[edge.first][Int($0.x)] },
                    points2: sample.map { keypoints[edge.second][Int($0.y)] }),
                  Double(pose.inFront) >= minInFrontRatio * Double(sample.count) else { return }
            result[e] = pose.rotation
        }
        return (0..<graph.edges.count).compactMap { e in result[e].map { (edge: e, rotation: $0) } }
    }

    /// Rotations (cam_from_world) of the images the votes reach: a maximum spanning forest by
    /// match count starts them, Gauss-Seidel sweeps of Cauchy-weighted averaging refine them.
    func averaged(_ votes: [(edge: Int, rotation: Matrix3)], graph: MatchGraph)
        -> (rotations: [Int: Matrix3], parts: [Int: Int]) {
        // Spanning forest: the strongest pairs first (Kruskal).
        var parent = Array(0..<graph.numImages)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        var adjacency = [[(other: Int, otherFromThis: Matrix3, weight: Double)]](repeating: [], count: graph.numImages)
        var tree = [[(other: Int, otherFromThis: Matrix3)]](repeating: [], count: graph.numImages)
        for vote in votes.sorted(by: { (graph.edges[$0.edge].matches.count, -$0.edge) > (graph.edges[$1.edge].matches.count, -$1.edge) }) {
            let edge = graph.edges[vote.edge]
            let weight = Double(edge.matches.count)
            adjacency[edge.first].append((edge.second, vote.rotation, weight))
            adjacency[edge.second].append((edge.first, vote.rotation.transposed, weight))
            let (a, b) = (root(edge.first), root(edge.second))
            if a != b {
                parent[a] = b
                tree[edge.first].append((edge.second, vote.rotation))
                tree[edge.second].append((edge.first, vote.rotation.transposed))
            }
        }
        var rotations: [Int: Matrix3] = [:], parts: [Int: Int] = [:]
        for start in 0..<graph.numImages where rotations[start] == nil && !tree[start].isEmpty {
            rotations[start] = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
            parts[start] = start
            var queue = [start]
            while let i = queue.popLast() {
                for (j, jFromI) in tree[i] where rotations[j] == nil {
                    rotations[j] = jFromI * rotations[i]!
                    parts[j] = start
                    queue.append(j)
                }
            }
        }
        // Each image in turn takes what most of its pairs say: the estimate with the most
        // support within three Cauchy scales (so that an image the spanning tree reached through
        // a twin is not held there by the twin's own vote), then the Cauchy-weighted mean around
        // it.
        let scale = cauchyScaleDeg
        for _ in 0..<sweeps {
            for i in 0..<graph.numImages where !adjacency[i].isEmpty {
                var estimates: [(rotation: Matrix3, weight: Double)] = []
                for (j, jFromI, matches) in adjacency[i] {
                    guard let other = rotations[j] else { continue }
                    // The square root of the match count: a pair's evidence, not its accuracy,
                    // so that a few strong pairs do not outvote many.
                    estimates.append((jFromI.transposed * other, matches.squareRoot()))
                }
                guard !estimates.isEmpty else { continue }
                var best = (support: -1.0, index: 0)
                for (k, candidate) in estimates.enumerated() {
                    var support = 0.0
                    for other in estimates where Rotation.angleDegrees(between: candidate.rotation, and: other.rotation) < 3 * scale {
                        support += other.weight
                    }
                    if support > best.support { best = (support, k) }
                }
                let centre = estimates[best.index].rotation
                let reference = Rotation.quaternion(centre)
                var sum = SIMD4<Double>.zero
                for estimate in estimates {
                    let residual = Rotation.angleDegrees(between: estimate.rotation, and: centre) / scale
                    let q = Rotation.quaternion(estimate.rotation)
                    sum += estimate.weight / (1 + residual * residual) * ((q * reference).sum() < 0 ? -q : q)
                }
                let norm = (sum * sum).sum().squareRoot()
                if norm > 0 { rotations[i] = Rotation.matrix(quaternion: sum / norm) }
            }
        }
        return (rotations, parts)
    }
}
