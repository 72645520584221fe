import CVision

/// Options of descriptor matching (COLMAP semantics: distances are angles between unit
/// descriptors).
public struct MatchOptions: Sendable, Equatable {
    /// Largest ratio of best to second-best distance (Lowe's ratio test). Default 0.8.
    public var maxRatio = CoreDefaults.match.max_ratio
    /// Largest distance of a match, in radians between unit descriptors. Default 0.7.
    public var maxDistance = CoreDefaults.match.max_distance
    /// Keep only mutual nearest neighbours. Default true.
    public var crossCheck = CoreDefaults.match.cross_check != 0

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        guard maxRatio > 0, maxRatio <= 1, maxDistance > 0 else {
            throw CVisionError(
                code: .invalidArgument,
                message: "MatchOptions: maxRatio must be in (0, 1] and maxDistance > 0")
        }
    }

    func cOptions() -> cvis_match_options {
        cvis_match_options(max_ratio: maxRatio, max_distance: maxDistance, cross_check: crossCheck ? 1 : 0)
    }
}

/// One putative correspondence: a feature index in each of two sets.
public struct FeatureMatch: Hashable, Sendable {
    /// Index in the first set.
    public var index1: Int32
    /// Index in the second set.
    public var index2: Int32

    /// Creates a match of `index1` in the first set with `index2` in the second.
    public init(_ index1: Int32, _ index2: Int32) {
        self.index1 = index1
        self.index2 = index2
    }
}

/// Brute-force SIFT descriptor matching (single-threaded per call; call it concurrently on pairs).
public enum DescriptorMatcher {
    /// Matches the descriptors of `first` against `second`, ordered by index in `first`.
    public static func match(
        _ first: FeatureSet, _ second: FeatureSet, options: MatchOptions = MatchOptions()
    ) throws -> [FeatureMatch] {
        try options.validate()
        var cOptions = options.cOptions()
        return try collectMatches(first, second) { buffer, found in
            cvis_match_features(first.handle, second.handle, &cOptions, buffer, &found)
        }
    }

    /// Runs a C matcher that writes (index in first, index in second) pairs into a buffer of
    /// 2 · min(counts) int32s, and returns them as matches.
    static func collectMatches(_ first: FeatureSet, _ second: FeatureSet,
                               _ call: (UnsafeMutablePointer<Int32>?, inout Int32) -> cvis_status) throws -> [FeatureMatch] {
        let capacity = min(first.count, second.count)
        guard capacity > 0 else { return [] }
        var indices = [Int32](repeating: 0, count: 2 * capacity)
        var found: Int32 = 0
        try indices.withUnsafeMutableBufferPointer { buffer in try check(call(buffer.baseAddress, &found)) }
        return (0..<Int(found)).map { FeatureMatch(indices[2 * $0], indices[2 * $0 + 1]) }
    }
}
