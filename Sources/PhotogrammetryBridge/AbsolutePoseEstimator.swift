import CVision
import PhotogrammetryCore

/// Robust camera pose from 2D-3D correspondences (PnP), on undistorted normalised coordinates.
///
/// Wraps `cvis_estimate_absolute_pose`: OpenCV's USAC with a seeded sampler (P3P samples, MSAC
/// score), then Levenberg-Marquardt on the inliers and a final inlier count under the refined pose.
/// Equal input and seed give an equal answer.
public enum AbsolutePoseEstimator {
    /// Options of ``estimate(pointsInWorld:normalizedPoints:options:)``.
    public struct Options: Equatable, Sendable {
        /// Reprojection threshold in normalised units (pixels / focal length). Default 0.004.
        public var maxError = CoreDefaults.absolutePose.max_error
        /// Probability that RANSAC's answer is right when it stops. Default 0.9999.
        public var confidence = CoreDefaults.absolutePose.confidence
        /// Upper bound on RANSAC iterations. Default 10000.
        public var maxIterations = Int(CoreDefaults.absolutePose.max_iterations)
        /// Fewer inliers than this is a failure (`.notEnoughData`). Default 12.
        public var minNumInliers = Int(CoreDefaults.absolutePose.min_num_inliers)
        /// Refines the pose on the inliers (Levenberg-Marquardt). Default true.
        public var refine = CoreDefaults.absolutePose.refine != 0
        /// Seed of the sampler. Default 0.
        public var seed = CoreDefaults.absolutePose.seed

        public init() {}

        /// Throws ``CVisionError`` (`.invalidArgument`) naming the first value out of range.
        public func validate() throws {
            guard maxError > 0 else { throw CVisionError.invalidOption("maxError must be positive") }
            guard confidence > 0 && confidence < 1 else { throw CVisionError.invalidOption("confidence must be in (0, 1)") }
            guard maxIterations >= 1 else { throw CVisionError.invalidOption("maxIterations must be at least 1") }
            guard minNumInliers >= 4 else { throw CVisionError.invalidOption("minNumInliers must be at least 4") }
        }

        var cOptions: cvis_absolute_pose_options {
            cvis_absolute_pose_options(max_error: maxError, confidence: confidence,
                                       max_iterations: Int32(clamping: maxIterations),
                                       min_num_inliers: Int32(clamping: minNumInliers),
                                       refine: refine ? 1 : 0, seed: seed)
        }
    }

    /// Estimates `camFromWorld` from points and their normalised observations.
    ///
    /// - Parameters:
    ///   - pointsInWorld: the 3D points.
    ///   - normalizedPoints: their observations with the intrinsics removed (`K⁻¹`, undistorted).
    ///   - options: thresholds and seed.
    /// - Returns: the pose and, per correspondence, whether it is an inlier.
    /// - Throws: ``CVisionError`` `.notEnoughData` below `minNumInliers`, `.noConvergence` when
    ///   no pose is found, `.invalidArgument` for mismatched sizes or options.
    public static func estimate(pointsInWorld: [SIMD3<Double>], normalizedPoints: [SIMD2<Double>],
                                options: Options = Options()) throws -> (camFromWorld: Rigid3, inliers: [Bool]) {
        try options.validate()
        guard pointsInWorld.count == normalizedPoints.count else {
            throw CVisionError.invalidOption("\(pointsInWorld.count) points but \(normalizedPoints.count) observations")
        }
        let n = pointsInWorld.count
        let flat3D = pointsInWorld.packedCoordinates
        var rotation = [Double](repeating: 0, count: 3), translation = [Double](repeating: 0, count: 3)
        var mask = [UInt8](repeating: 0, count: n)
        var numInliers: Int32 = 0
        var cOptions = options.cOptions
        try flat3D.withUnsafeBufferPointer { p3 in
            try normalizedPoints.withUnsafeBytes { p2 in
                try check(cvis_estimate_absolute_pose(
                    p3.baseAddress, p2.baseAddress?.assumingMemoryBound(to: Double.self), Int32(n),
                    &cOptions, &rotation, &translation, &mask, &numInliers))
            }
        }
        let pose = Rigid3(angleAxis: SIMD3(rotation[0], rotation[1], rotation[2]),
                          translation: SIMD3(translation[0], translation[1], translation[2]))
        return (pose, mask.map { $0 != 0 })
    }
}

extension CVisionError {
    /// An `.invalidArgument` error raised on the Swift side (option validation, size mismatch).
    package static func invalidOption(_ message: String) -> CVisionError {
        CVisionError(code: .invalidArgument, message: message)
    }
}

extension Array where Element == SIMD3<Double> {
    /// x, y, z of each point back to back: `SIMD3<Double>` is padded to 32 bytes, so an array
    /// of them cannot be handed to C as `n x 3` doubles.
    var packedCoordinates: [Double] {
        var flat = [Double]()
        flat.reserveCapacity(count * 3)
        for p in self { flat.append(p.x); flat.append(p.y); flat.append(p.z) }
        return flat
    }
}
