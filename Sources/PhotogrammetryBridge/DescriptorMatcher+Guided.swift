import CVision

extension DescriptorMatcher {
    /// Matches `first` against `second` among keypoint pairs within `maxErrorPx` of each other's
    /// epipolar line under `fundamental` (row-major, x2ᵀ F x1 = 0 in pixels): the ratio test and
    /// mutual check compare only geometric rivals. Ordered by index in `first`.
    public static func matchGuided(
        _ first: FeatureSet, _ second: FeatureSet, fundamental: [Double], maxErrorPx: Double,
        options: MatchOptions = MatchOptions()
    ) throws -> [FeatureMatch] {
        try options.validate()
        guard fundamental.count == 9 else {
            throw CVisionError(code: .invalidArgument, message: "guided matching needs a 3x3 fundamental matrix")
        }
        var cOptions = options.cOptions()
        return try collectMatches(first, second) { buffer, found in
            cvis_match_features_guided(first.handle, second.handle, fundamental, maxErrorPx, &cOptions, buffer, &found)
        }
    }
}
