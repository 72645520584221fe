/// Tracks: the sets of keypoints, one per image at most, that see the same scene point.
///
/// Built by union-find over the verified matches. A component that holds two keypoints of one
/// image is inconsistent (repetitive texture, a bad match, or on a long video one point found
/// twice at neighbouring keypoints): it is dropped as OpenMVG does, because a wrong track poisons
/// bundle adjustment, or, with `splittingInconsistent`, split into consistent tracks by taking
/// its matches again strongest pair first and refusing each that would put two keypoints of one
/// image into one track (the long tracks of a walk that comes back to its start are the ones
/// most often inconsistent, and the ones that tie its ends together).
public struct TrackSet: Sendable {
    /// Each track's observations: (image index, keypoint index), ordered by image.
    public var tracks: [[SIMD2<Int32>]]
    /// For each image, for each keypoint, the track it belongs to (-1: none).
    public var trackOfKeypoint: [[Int32]]
    /// Components that hit one image twice (dropped, or split when splitting).
    public var numInconsistent: Int
    /// Tracks that came from splitting inconsistent components.
    public var numSplitTracks = 0

    /// Builds tracks from verified matches.
    /// - Parameters:
    ///   - graph: the verified pairs.
    ///   - keypointCounts: the number of keypoints of each image.
    ///   - splittingInconsistent: split inconsistent components into consistent tracks rather
    ///     than drop them.
    public init(graph: MatchGraph, keypointCounts: [Int], splittingInconsistent: Bool = false) {
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
        var inconsistentRoots = Set<Int>()
        let roots = members.keys.sorted()
        for root in roots {
            let observations = members[root]!  // already ordered by image, then keypoint
            for i in 1..<observations.count where observations[i].x == observations[i - 1].x {
                inconsistentRoots.insert(root)
                break
            }
        }
        let split = splittingInconsistent && !inconsistentRoots.isEmpty
            ? Self.split(inconsistentRoots, of: &forest, graph: graph, offsets: offsets) : [:]
        // Sort roots so track numbering does not depend on dictionary order (determinism).
        for root in roots {
            let parts = inconsistentRoots.contains(root) ? split[root] ?? [] : [members[root]!]
            for observations in parts {
                let id = Int32(tracks.count)
                for o in observations { trackOfKeypoint[Int(o.x)][Int(o.y)] = id }
                tracks.append(observations)
            }
        }
        self.tracks = tracks
        self.trackOfKeypoint = trackOfKeypoint
        self.numInconsistent = inconsistentRoots.count
        self.numSplitTracks = split.values.reduce(0) { $0 + $1.count }
    }

    /// The consistent tracks of each inconsistent component (by its root in `forest`): its
    /// matches taken again, pairs with more verified matches first, each joining two sets only
    /// when they see no image in common. Tracks are ordered by their first observation.
    private static func split(_ roots: Set<Int>, of forest: inout UnionFind, graph: MatchGraph,
                              offsets: [Int]) -> [Int: [[SIMD2<Int32>]]] {
        let order = graph.edges.indices.sorted {
            (graph.edges[$0].matches.count, -$0) > (graph.edges[$1].matches.count, -$1)
        }
        var local = [Int: Int]()  // node -> index into `images` and the local forest
        var nodes: [(image: Int32, keypoint: Int32, root: Int)] = []
        var unions: [(Int, Int)] = []
        for e in order {
            let edge = graph.edges[e]
            let a = offsets[edge.first], b = offsets[edge.second]
            for m in edge.matches {
                let na = a + Int(m.x), nb = b + Int(m.y)
                let root = forest.find(na)
                guard roots.contains(root) else { continue }
                func index(_ node: Int, _ image: Int, _ keypoint: Int32) -> Int {
                    if let known = local[node] { return known }
                    local[node] = nodes.count
                    nodes.append((Int32(image), keypoint, root))
                    return nodes.count - 1
                }
                unions.append((index(na, edge.first, m.x), index(nb, edge.second, m.y)))
            }
        }
        var parts = UnionFind(count: nodes.count)
        var imagesOf = nodes.map { Set([$0.image]) }
        for (x, y) in unions {
            let rx = parts.find(x), ry = parts.find(y)
            guard rx != ry, imagesOf[rx].isDisjoint(with: imagesOf[ry]) else { continue }
            parts.union(rx, ry)
            let (kept, gone) = parts.find(rx) == rx ? (rx, ry) : (ry, rx)
            imagesOf[kept].formUnion(imagesOf[gone])
            imagesOf[gone] = []
        }
        var byPart = [Int: [SIMD2<Int32>]]()
        for (n, node) in nodes.enumerated() { byPart[parts.find(n), default: []].append(SIMD2(node.image, node.keypoint)) }
        var result = [Int: [[SIMD2<Int32>]]]()
        for (part, observations) in byPart where observations.count >= 2 {
            result[nodes[part].root, default: []].append(observations.sorted { ($0.x, $0.y) < ($1.x, $1.y) })
        }
        for root in result.keys {
            result[root]!.sort { ($0[0].x, $0[0].y) < ($1[0].x, $1[0].y) }
        }
        return result
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
