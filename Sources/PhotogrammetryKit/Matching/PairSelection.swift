/// Which image pairs to match: all of them for small captures, a bounded set for large ones.
public struct PairSelectionOptions: Sendable {
    /// How pairs are chosen.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Exhaustive up to `exhaustiveLimit` images, sequential beyond (and for walks).
        case automatic = "auto"
        /// Every pair, whatever the capture's size.
        case exhaustive
        /// Sequential neighbours, pairs 2^k apart and loop closure at the ends, whatever the size.
        case sequential
    }

    /// How pairs are chosen. Default automatic.
    public var strategy = Strategy.automatic
    /// Captures up to this many images are matched exhaustively. Default 60.
    public var exhaustiveLimit = 60
    /// Match as a walk whatever the capture's size: sequential neighbours, pairs 2^k apart and
    /// loop closures between the walk's ends, never all pairs (rooms, `--room`). Default false.
    public var walk = false
    /// Beyond it: each image is matched with this many following images. Default 10.
    public var sequentialOverlap = 10
    /// Beyond it: also with images 2^k ahead (COLMAP's quadratic overlap), for loop closure. Default true.
    public var quadraticOverlap = true

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        if exhaustiveLimit < 2 || sequentialOverlap < 1 {
            throw PipelineError.invalidOption("pair selection: exhaustiveLimit >= 2 and sequentialOverlap >= 1")
        }
    }
}

/// Picks pairs to match; the result grows as n log n, not n², beyond `exhaustiveLimit`.
public enum PairSelection {
    /// The pairs (i, j), i < j, to match among `count` images ordered by name.
    public static func pairs(count: Int, options: PairSelectionOptions) -> [SIMD2<Int32>] {
        switch options.strategy {
        case .exhaustive: return exhaustivePairs(count: count)
        case .sequential: return sequentialPairs(count: count, options: options)
        case .automatic:
            if count <= options.exhaustiveLimit && !options.walk { return exhaustivePairs(count: count) }
            return sequentialPairs(count: count, options: options)
        }
    }

    /// Every pair (i, j), i < j.
    public static func exhaustivePairs(count: Int) -> [SIMD2<Int32>] {
        var result: [SIMD2<Int32>] = []
        result.reserveCapacity(max(0, count * (count - 1) / 2))
        for i in 0..<count {
            for j in (i + 1)..<max(i + 1, count) { result.append(SIMD2(Int32(i), Int32(j))) }
        }
        return result
    }

    /// Sequential neighbours, pairs 2^k apart (quadratic overlap) and loop closure at the ends.
    public static func sequentialPairs(count: Int, options: PairSelectionOptions) -> [SIMD2<Int32>] {
        var result: [SIMD2<Int32>] = []
        var seen = Set<SIMD2<Int32>>()
        func add(_ i: Int, _ j: Int) {
            guard i != j else { return }
            let pair = SIMD2(Int32(min(i, j)), Int32(max(i, j)))
            if seen.insert(pair).inserted { result.append(pair) }
        }
        for i in 0..<count {
            for d in 1...options.sequentialOverlap where i + d < count { add(i, i + d) }
            if options.quadraticOverlap {
                var d = options.sequentialOverlap * 2
                while i + d < count {
                    add(i, i + d)
                    d *= 2
                }
                // A walk that comes back to its start: close the loop at the ends as well.
                var back = 1
                while back <= options.sequentialOverlap && i + 1 <= options.sequentialOverlap {
                    add(i, count - back)
                    back += 1
                }
            }
        }
        return result
    }
}
