import CVision
import PhotogrammetryCore

/// Relative pose of two views from an essential matrix on normalised coordinates.
///
/// Wraps `cvis_estimate_relative_pose`: USAC five-point with a seeded sampler, least-squares
/// refinement of (R, t) on the inliers (Sampson error), and the cheirality check that picks
/// the pose and the inliers in front of both cameras.
public enum RelativePoseEstimator {
    /// Options of ``estimate(normalizedPoints1:normalizedPoints2:options:)``.
    public struct Options: Equatable, Sendable {
        /// Sampson-distance threshold in normalised units (pixels / focal length). Default 0.004.
        public var maxError = 0.004
        /// Probability that RANSAC's answer is right when it stops. Default 0.9999.
        public var confidence = 0.9999
        /// Seed of the sampler. Default 0.
        public var seed: UInt64 = 0

        public init() {}

        /// Throws ``CVisionError`` (`.invalidArgument`) naming the first value out of range.
        public func validate() throws {
            guard maxError > 0 else { throw CVisionError.invalidOption("maxError must be positive") }
            guard confidence > 0 && confidence < 1 else { throw CVisionError.invalidOption("confidence must be in (0, 1)") }
        }
    }

    /// Estimates `cam2FromCam1` (unit translation) from matched normalised points.
    ///
    /// - Returns: the pose, with `|translation| = 1`, and per match whether it is an inlier in
    ///   front of both cameras.
    /// - Throws: ``CVisionError`` `.notEnoughData` (fewer than 5 matches or inliers),
    ///   `.noConvergence`, `.invalidArgument`.
    public static func estimate(normalizedPoints1: [SIMD2<Double>], normalizedPoints2: [SIMD2<Double>],
                                options: Options = Options()) throws -> (cam2FromCam1: Rigid3, inliers: [Bool]) {
        try options.validate()
        guard normalizedPoints1.count == normalizedPoints2.count else {
            throw CVisionError.invalidOption("\(normalizedPoints1.count) and \(normalizedPoints2.count) points")
        }
        let n = normalizedPoints1.count
        var rotation = [Double](repeating: 0, count: 3), translation = [Double](repeating: 0, count: 3)
        var mask = [UInt8](repeating: 0, count: n)
        var numInliers: Int32 = 0
        try normalizedPoints1.withUnsafeBytes { p1 in
            try normalizedPoints2.withUnsafeBytes { p2 in
                try check(cvis_estimate_relative_pose(
                    p1.baseAddress?.assumingMemoryBound(to: Double.self),
                    p2.baseAddress?.assumingMemoryBound(to: Double.self), Int32(n),
                    options.maxError, options.confidence, options.seed,
                    &rotation, &translation, &mask, &numInliers))
            }
        }
        let pose = Rigid3(angleAxis: SIMD3(rotation[0], rotation[1], rotation[2]),
                          translation: SIMD3(translation[0], translation[1], translation[2]))
        return (pose, mask.map { $0 != 0 })
    }
}
