import Foundation

/// Drops the verified pairs whose relative rotation contradicts the rotations the rest of the
/// view graph agrees on: robust rotation averaging over every pair with general motion, then
/// every pair judged against it.
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
/// pairs are not dropped before tracks are built: under the focal length guessed before SfM a
/// true pair can miss by more than the bound too (templeRing's frames 4-5: 174°, as the wrong
/// one of E's twisted pair wins), and dropping cost templeRing 0.3 and lowtex-orbit 0.5 of
/// AUC@5.
public struct RotationConsistency: Sendable, Equatable {
    /// Largest angle, in degrees, between a pair's own relative rotation and the one the averaged
    /// rotations imply; pairs beyond it are dropped. 0 turns the filter off. Default 45: a
    /// half-turn twin misses by 90-180°, while true pairs stay within a few degrees, and within
    /// 20° even where the focal length is guessed 1.5 times too long (orbits, before bundle
    /// adjustment refines it).
    public var maxResidualDeg = 45.0
    /// Scale, in degrees, of the Cauchy weights in the averaging: a pair this far off weighs half
    /// as much. Default 5.
    public var cauchyScaleDeg = 5.0
    /// Share of a pair's matches its relative pose must put in front of both cameras for the pair
    /// to be judged (and to vote). Default 0.5: below it the pose is not the matches' own.
    public var minInFrontRatio = 0.5
    /// Verified matches a pair with general motion needs to vote in the averaging. Default 100,
    /// the points an initial pair must triangulate (``MapperOptions/initMinNumPoints``): fewer
    /// leave its rotation to chance. Weaker pairs are judged, not heard (measured with an earlier
    /// form of the check that also ran on turntables: with every pair voting, synthetic-turntable's
    /// AUC@5 was 77.1, with this floor 98.3).
    public var minVoteMatches = 100
    /// Sweeps of the averaging over all images. Default 20.
    public var sweeps = 20

    /// Creates the default options.
    public init() {}

    /// Whether the filter runs.
    public var isOn: Bool { maxResidualDeg > 0 }

    /// Throws when an option is out of range.
    public func validate() throws {
        guard maxResidualDeg >= 0, maxResidualDeg <= 180, cauchyScaleDeg > 0, (0...1).contains(minInFrontRatio),
              sweeps >= 1, minVoteMatches >= 0 else {
            throw PipelineError.invalidOption(
                "sparse: RotationConsistency: maxResidualDeg in 0...180, cauchyScaleDeg > 0, minInFrontRatio in 0...1, sweeps >= 1")
        }
    }

    /// What the filter found: the graph without the dropped pairs, and those pairs.
    public struct Result {
        public var graph: MatchGraph
        /// The dropped pairs with their residual in degrees.
        public var dropped: [(first: Int, second: Int, residualDeg: Double)]
        /// Pairs judged.
        public var judged: Int
        /// Median residual of the judged pairs kept, degrees: how well the rest agrees.
        public var medianKeptResidualDeg: Double
        /// The averaged rotations (cam_from_world, in an arbitrary frame per connected part).
        public var rotations: [Int: Matrix3]
    }

    /// The graph without the pairs whose relative rotation is more than ``maxResidualDeg`` from
    /// the averaged rotations' (pairs with general motion only; the others stay unjudged).
    /// - Parameters:
    ///   - calibration: each image's intrinsics (its camera's current guess).
    ///   - keypoints: each image's keypoint positions, pixels.
    public func filter(_ graph: MatchGraph, calibration: [Matrix3], keypoints: [[SIMD2<Double>]],
                       threads: Int) -> Result {
        guard isOn else { return Result(graph: graph, dropped: [], judged: 0, medianKeptResidualDeg: 0, rotations: [:]) }
        let evidence = relativeRotations(graph, calibration: calibration, keypoints: keypoints, threads: threads)
        let votes = evidence.indices.compactMap { e in
            evidence[e].flatMap { $0.votes ? (edge: e, rotation: $0.rotations[0]) : nil }
        }
        let rotations = averaged(votes, graph: graph)
        var keep = [Bool](repeating: true, count: graph.edges.count)
        var dropped: [(Int, Int, Double)] = []
        var judged = 0
        var keptResiduals: [Double] = []
        for (e, edge) in graph.edges.enumerated() {
            guard let candidates = evidence[e]?.rotations, let first = rotations[edge.first],
                  let second = rotations[edge.second] else { continue }
            judged += 1
            let implied = second * first.transposed
            let residual = candidates.map { Rotation.angleDegrees(between: $0, and: implied) }.min() ?? 0
            if residual > maxResidualDeg {
                keep[e] = false
                dropped.append((edge.first, edge.second, residual))
            } else {
                keptResiduals.append(residual)
            }
        }
        var filtered = graph
        filtered.edges = graph.edges.indices.filter { keep[$0] }.map { graph.edges[$0] }
        return Result(graph: filtered, dropped: dropped, judged: judged,
                      medianKeptResidualDeg: keptResiduals.median() ?? 0, rotations: rotations)
    }

    /// What a pair says of its relative rotation (cam2_from_cam1).
    struct Evidence {
        /// One rotation for a pair with general motion, from its fundamental matrix; the one to
        /// four a planar pair's homography allows.
        var rotations: [Matrix3]
        /// Whether the pair takes part in the averaging: only a single, unambiguous rotation does.
        var votes: Bool
    }

    /// Matches of a pair used for its rotation, at most: 128.
    static let maxPointsPerPair = 128

    /// Each pair's evidence, or nil where the pose it gives puts too few matches in front (it is
    /// not the matches' own) or the homography allows no rotation.
    func relativeRotations(_ graph: MatchGraph, calibration: [Matrix3], keypoints: [[SIMD2<Double>]],
                           threads: Int) -> [Evidence?] {
        let result = ResultSlots<Evidence>(count: graph.edges.count)
        let maxErrorPx = TwoViewOptions().maxErrorPixels
        parallelFor(graph.edges.count, threads: threads) { e in
            let edge = graph.edges[e]
            guard !edge.matches.isEmpty else { return }
            // An evenly spaced sample: the pose's sign and a homography need a few dozen points,
            // and the pairs of a well-textured capture hold thousands (cost stays per pair).
            let stride = (edge.matches.count + Self.maxPointsPerPair - 1) / Self.maxPointsPerPair
            let sample = Swift.stride(from: 0, to: edge.matches.count, by: stride).map { edge.matches[$0] }
            let points1 = sample.map { keypoints[edge.first][Int($0.x)] }
            let points2 = sample.map { keypoints[edge.second][Int($0.y)] }
            let K1 = calibration[edge.first].rowMajor, K2 = calibration[edge.second].rowMajor
            if edge.configuration.hasGeneralMotion && edge.fundamental.count == 9 {
                guard let pose = try? TwoViewEstimator.relativePose(
                        fundamental: edge.fundamental, K1: K1, K2: K2, points1: points1, points2: points2),
                      Double(pose.inFront) >= minInFrontRatio * Double(sample.count) else { return }
                result[e] = Evidence(rotations: [pose.rotation], votes: edge.matches.count >= minVoteMatches)
            } else if edge.configuration != .degenerate {
                guard let rotations = try? TwoViewEstimator.planarRotations(
                        points1: points1, points2: points2, K1: K1, K2: K2, maxErrorPx: maxErrorPx),
                      !rotations.isEmpty else { return }
                result[e] = Evidence(rotations: rotations, votes: false)
            }
        }
        return (0..<graph.edges.count).map { result[$0] }
    }

    /// Rotations (cam_from_world) of the images the votes reach: a maximum spanning forest by
    /// match count starts them, Gauss-Seidel sweeps of Cauchy-weighted averaging refine them.
    func averaged(_ votes: [(edge: Int, rotation: Matrix3)], graph: MatchGraph) -> [Int: Matrix3] {
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
        var rotations: [Int: Matrix3] = [:]
        for start in 0..<graph.numImages where rotations[start] == nil && !tree[start].isEmpty {
            rotations[start] = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
            var queue = [start]
            while let i = queue.popLast() {
                for (j, jFromI) in tree[i] where rotations[j] == nil {
                    rotations[j] = jFromI * rotations[i]!
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
        return rotations
    }
}
