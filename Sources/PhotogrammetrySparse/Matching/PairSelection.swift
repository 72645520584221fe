import PhotogrammetryCore
import PhotogrammetryBridge

/// Which image pairs to match: all of them while that is cheap, retrieved ones beyond.
public struct PairSelectionOptions: Sendable {
    /// How pairs are chosen.
    public enum Strategy: String, Sendable, CaseIterable {
        /// Exhaustive up to `exhaustiveLimit` images, retrieval beyond; sequential for walks.
        case automatic = "auto"
        /// Every pair, whatever the capture's size.
        case exhaustive
        /// Image retrieval (plus sequential neighbours for sequences), whatever the size.
        case retrieval
        /// Sequential neighbours, pairs 2^k apart and loop closure at the ends, whatever the size.
        case sequential
        /// Each image with the images whose views overlap its own by the pose priors (automatic
        /// when the run has priors).
        case priors
    }

    /// How pairs are chosen. Default automatic.
    public var strategy = Strategy.automatic
    /// Captures of more images are never matched exhaustively. Default 500: the comparison
    /// budget below binds first for 1,100 features per image or more; this caps the per-pair
    /// work that does not depend on features (125,000 pairs).
    public var exhaustiveLimit = 500
    /// Captures are matched exhaustively while all pairs together compare at most this many
    /// descriptors (the sum of F_i·F_j over pairs). Default 1.5e11: about 10 CPU-minutes at
    /// 3.8 ns per comparison (5 minutes on two cores), so dtu-scan24's 49 full-size
    /// images (6.2e10, 4 CPU-minutes) stay exhaustive, and frames of 1,300 features up to about
    /// 420, of 8,000 features up to about 65 (`scripts/bench/pairs.py`).
    public var exhaustiveComparisons = 1.5e11
    /// Match as a walk whatever the capture's size: sequential neighbours, pairs 2^k apart and
    /// loop closures between the walk's ends, never all pairs (rooms, `--room`). Default false.
    public var walk = false
    /// Sequences: each image is matched with this many following images. Default 10.
    public var sequentialOverlap = 10
    /// Sequences: also with images 2^k ahead (COLMAP's quadratic overlap), for loop closure. Default true.
    public var quadraticOverlap = true
    /// Retrieval: each image is matched with this many of its most similar images. Default 30:
    /// images of pavilion-outer and dtu-scan24 have up to 38 and 34 verified partners (median 9
    /// and 26); retrieval's 30 best alone reach nearly all of exhaustive matching's verified
    /// pairs and every pair with 50 matches or more, at about 0.7·n·k pairs, and fewer lose
    /// pairs fast (`scripts/bench/pairs.py`, docs/benchmarks.md).
    public var retrievalNeighbours = 30
    /// Retrieval: the capture counts as a sequence (video, photos taken in order) when at least this
    /// share of consecutive images (by name) retrieve each other among their `retrievalNeighbours`;
    /// sequences also get sequential neighbours and quadratic overlap. Default 0.5 (an unordered
    /// capture of n images reaches about retrievalNeighbours / n).
    public var sequenceFraction = 0.5
    /// Priors: each image is matched with this many of the views that overlap its own most.
    /// Default 6: the views that overlap most all verify, so a few suffice, and each more adds
    /// pairs to match (docs/benchmarks.md).
    public var priorNeighbours = 6
    /// Priors: views sharing less than this share of their frustums' samples are never paired.
    /// Default 0.05.
    public var priorMinOverlap = 0.05
    /// Retrieval: the vocabulary and its scoring.
    public var retrieval = RetrievalOptions()

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        if exhaustiveLimit < 2 || sequentialOverlap < 1 || retrievalNeighbours < 1 || !(0...1).contains(sequenceFraction)
            || priorNeighbours < 1 || !(0..<1).contains(priorMinOverlap) {
            throw PipelineError.invalidOption(
                "pair selection: exhaustiveLimit >= 2, sequentialOverlap >= 1, retrievalNeighbours >= 1, sequenceFraction in [0, 1], "
                    + "priorNeighbours >= 1, priorMinOverlap in [0, 1)")
        }
        try retrieval.validate()
    }
}

/// Picks pairs to match: every pair up to `exhaustiveLimit`, n·k retrieved pairs beyond.
public enum PairSelection {
    /// The chosen pairs and how they were chosen.
    public struct Selection: Sendable {
        /// Pairs (i, j), i < j, each once.
        public var pairs: [SIMD2<Int32>]
        /// The strategy that chose them (never `.automatic`).
        public var strategy: PairSelectionOptions.Strategy
        /// Retrieval only: whether the capture was found to be a sequence.
        public var isSequence = false
        /// Retrieval only: the share of consecutive images that retrieved each other.
        public var consecutiveFraction: Double?
    }

    /// The strategy `options` resolve to for images with these feature counts (`hasPriors`:
    /// the run has pose priors for its images).
    public static func strategy(featureCounts: [Int], options: PairSelectionOptions, hasPriors: Bool = false)
        -> PairSelectionOptions.Strategy {
        switch options.strategy {
        case .automatic:
            if hasPriors { return .priors }
            if options.walk { return .sequential }
            let affordable = featureCounts.count <= options.exhaustiveLimit
                && comparisons(featureCounts: featureCounts) <= options.exhaustiveComparisons
            return affordable ? .exhaustive : .retrieval
        case let chosen: return chosen
        }
    }

    /// Descriptor comparisons of exhaustive matching: the sum over pairs of F_i·F_j.
    public static func comparisons(featureCounts: [Int]) -> Double {
        let counts = featureCounts.map(Double.init)
        let sum = counts.reduce(0, +), squares = counts.reduce(0) { $0 + $1 * $1 }
        return (sum * sum - squares) / 2
    }

    /// Chooses the pairs to match among `features` (images ordered by name).
    /// - Parameter priorViews: per image its view from the pose priors (nil without one); nil
    ///   when the run has no priors.
    public static func select(features: [FeatureSet], options: PairSelectionOptions, threads: Int,
                              priorViews: [PriorView?]? = nil) throws -> Selection {
        let count = features.count
        let hasPriors = (priorViews?.compactMap { $0 }.count ?? 0) >= 2
        switch strategy(featureCounts: features.map(\.count), options: options, hasPriors: hasPriors) {
        case .priors:
            guard hasPriors, let priorViews else {
                throw PipelineError.invalidOption("--pairs priors needs pose priors (a transforms.json, --priors)")
            }
            return Selection(pairs: priorPairs(views: priorViews, neighbours: options.priorNeighbours, minOverlap: options.priorMinOverlap),
                             strategy: .priors)
        case .exhaustive, .automatic: return Selection(pairs: exhaustivePairs(count: count), strategy: .exhaustive)
        case .sequential: return Selection(pairs: sequentialPairs(count: count, options: options), strategy: .sequential)
        case .retrieval:
            let index = try ImageRetrieval(features: features, options: options.retrieval, threads: threads)
            let neighbours = try index.nearestNeighbours(count: options.retrievalNeighbours)
            return retrievalPairs(neighbours: neighbours, options: options)
        }
    }

    /// Retrieval's pairs from each image's nearest neighbours: every image with its neighbours,
    /// and, when consecutive images retrieve each other (a sequence), sequential neighbours and
    /// quadratic overlap as well.
    public static func retrievalPairs(neighbours: [[ImageRetrieval.Neighbour]], options: PairSelectionOptions) -> Selection {
        let count = neighbours.count
        var pairs = PairSet()
        for (i, list) in neighbours.enumerated() {
            for neighbour in list { pairs.add(i, neighbour.image) }
        }
        let retrieved = Set(pairs.pairs)
        let consecutive = count > 1 ? (0..<(count - 1)).filter { retrieved.contains(SIMD2(Int32($0), Int32($0 + 1))) }.count : 0
        let fraction = count > 1 ? Double(consecutive) / Double(count - 1) : 0
        let isSequence = count > 1 && fraction >= options.sequenceFraction
        if isSequence {
            for pair in sequentialPairs(count: count, options: options) { pairs.add(Int(pair.x), Int(pair.y)) }
        }
        let sorted = pairs.pairs.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        return Selection(pairs: sorted, strategy: .retrieval, isSequence: isSequence, consecutiveFraction: fraction)
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
        var pairs = PairSet()
        for i in 0..<count {
            for d in 1...options.sequentialOverlap where i + d < count { pairs.add(i, i + d) }
            if options.quadraticOverlap {
                var d = options.sequentialOverlap * 2
                while i + d < count {
                    pairs.add(i, i + d)
                    d *= 2
                }
                // A walk that comes back to its start: close the loop at the ends as well.
                var back = 1
                while back <= options.sequentialOverlap && i + 1 <= options.sequentialOverlap {
                    pairs.add(i, count - back)
                    back += 1
                }
            }
        }
        return pairs.pairs
    }
}

/// Unordered image pairs in the order first added, each once, as (min, max).
struct PairSet {
    private(set) var pairs: [SIMD2<Int32>] = []
    private var seen = Set<SIMD2<Int32>>()

    /// Adds {i, j} unless i == j or it is already in.
    package mutating func add(_ i: Int, _ j: Int) {
        guard i != j else { return }
        let pair = SIMD2(Int32(min(i, j)), Int32(max(i, j)))
        if seen.insert(pair).inserted { pairs.append(pair) }
    }

    package func contains(_ i: Int, _ j: Int) -> Bool { seen.contains(SIMD2(Int32(min(i, j)), Int32(max(i, j)))) }
}
