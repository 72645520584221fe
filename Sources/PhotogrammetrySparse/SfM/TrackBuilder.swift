/// Tracks: the sets of keypoints, one per image at most, that see the same scene point.
///
/// Built by union-find over the verified matches. A component that holds two keypoints of one
/// image is inconsistent (repetitive texture, a bad match); it is dropped rather than guessed at,
/// as OpenMVG does, because a wrong track poisons bundle adjustment.
public struct TrackSet: Sendable {
    /// Each track's observations: (image index, keypoint index), ordered by image.
    public var tracks: [[SIMD2<Int32>]]
    /// For each image, for each keypoint, the track it belongs to (-1: none).
    public var trackOfKeypoint: [[Int32]]
    /// Components dropped because they hit one image twice.
    public var numInconsistent: Int

    /// Builds tracks from verified matches.
    /// - Parameters:
    ///   - graph: the verified pairs.
    ///   - keypointCounts: the number of keypoints of each image.
    public init(graph: MatchGraph, keypointCounts: [Int]) {
        precondition(keypointCounts.count == graph.numImages, "one keypoint count per image")
        var offsets = [Int](repeating: 0, count: keypointCounts.count + 1)
        for (i, n) in keypointCounts.enumerated() { offsets[i + 1] = offsets[i] + n }
        var forest = UnionFind(count: offsets.last!)
        for edge in graph.edges {
            let a = offsets[edge.first], b = offsets[edge.second]
            for m in edge.matches { forest.union(a + Int(m.x), b + Int(m.y)) }
        }

        // Group nodes by root; only nodes that took part in a match have a non-trivial root.
        var members: [Int: [SIMD2<Int32>]] = [:]
        for image in 0..<keypointCounts.count {
            for k in 0..<keypointCounts[image] {
                let node = offsets[image] + k
                let root = forest.find(node)
                if root == node && forest.size(of: node) == 1 { continue }
                members[root, default: []].append(SIMD2(Int32(image), Int32(k)))
            }
        }

        var trackOfKeypoint = keypointCounts.map { [Int32](repeating: -1, count: $0) }
        var tracks: [[SIMD2<Int32>]] = []
        var inconsistent = 0
        // Sort roots so track numbering does not depend on dictionary order (determinism).
        for root in members.keys.sorted() {
            let observations = members[root]!  // already ordered by image, then keypoint
            var consistent = observations.count >= 2
            for i in 1..<observations.count where observations[i].x == observations[i - 1].x {
                consistent = false
                break
            }
            guard consistent else { inconsistent += 1; continue }
            let id = Int32(tracks.count)
            for o in observations { trackOfKeypoint[Int(o.x)][Int(o.y)] = id }
            tracks.append(observations)
        }
        self.tracks = tracks
        self.trackOfKeypoint = trackOfKeypoint
        self.numInconsistent = inconsistent
    }

    /// The mean number of observations per track.
    public var meanTrackLength: Double {
        tracks.isEmpty ? 0 : Double(tracks.reduce(0) { $0 + $1.count }) / Double(tracks.count)
    }
}

/// Disjoint sets with path halving and union by size.
struct UnionFind {
    private var parent: [Int]
    private var sizes: [Int32]

    package init(count: Int) {
        parent = Array(0..<count)
        sizes = Array(repeating: 1, count: count)
    }

    package mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    package mutating func union(_ a: Int, _ b: Int) {
        var ra = find(a), rb = find(b)
        guard ra != rb else { return }
        if sizes[ra] < sizes[rb] { swap(&ra, &rb) }
        parent[rb] = ra
        sizes[ra] += sizes[rb]
    }

    package mutating func size(of x: Int) -> Int { Int(sizes[find(x)]) }
}
