import CVision
import PhotogrammetryCore

/// Options of robust two-view geometry (COLMAP's TwoViewGeometryOptions).
public struct TwoViewOptions: Sendable, Equatable {
    /// Epipolar / transfer error threshold, in pixels. Default 4.
    public var maxErrorPixels = CoreDefaults.twoView.max_error_px
    /// RANSAC confidence. Default 0.9999.
    public var confidence = CoreDefaults.twoView.confidence
    /// Most RANSAC iterations per model. Default 10000.
    public var maxIterations = Int(CoreDefaults.twoView.max_iterations)
    /// Fewest inliers of a verified pair. Default 15.
    public var minNumInliers = Int(CoreDefaults.twoView.min_num_inliers)
    /// A-priori minimum inlier ratio; caps the iterations as in COLMAP. Default 0.25.
    public var minInlierRatio = CoreDefaults.twoView.min_inlier_ratio
    /// H/F (or H/E) inlier ratio above which a pair is planar or panoramic. Default 0.8.
    public var maxHInlierRatio = CoreDefaults.twoView.max_h_inlier_ratio
    /// E/F inlier ratio from which a pair with intrinsics is calibrated. Default 0.95.
    public var minEFInlierRatio = CoreDefaults.twoView.min_e_f_inlier_ratio
    /// RANSAC seed, so results are reproducible. Default 0.
    public var seed = CoreDefaults.twoView.seed

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        func fail(_ message: String) -> CVisionError {
            CVisionError(code: .invalidArgument, message: "TwoViewOptions: \(message)")
        }
        guard maxErrorPixels > 0 else { throw fail("maxErrorPixels must be > 0") }
        guard confidence > 0, confidence < 1 else { throw fail("confidence must be in (0, 1)") }
        guard maxIterations > 0, maxIterations <= Int(Int32.max) else {
            throw fail("maxIterations must be > 0")
        }
        guard minNumInliers >= 0, minNumInliers <= Int(Int32.max) else {
            throw fail("minNumInliers must be >= 0")
        }
        guard minInlierRatio > 0, minInlierRatio <= 1 else { throw fail("minInlierRatio must be in (0, 1]") }
        guard maxHInlierRatio > 0, minEFInlierRatio > 0 else { throw fail("ratios must be > 0") }
    }

    func cOptions() -> cvis_two_view_options {
        cvis_two_view_options(
            max_error_px: maxErrorPixels, confidence: confidence, max_iterations: Int32(maxIterations),
            min_num_inliers: Int32(minNumInliers), min_inlier_ratio: minInlierRatio,
            max_h_inlier_ratio: maxHInlierRatio, min_e_f_inlier_ratio: minEFInlierRatio, seed: seed)
    }
}

/// The geometry relating two views, as COLMAP's TwoViewGeometry.
public struct TwoViewGeometry: Sendable, Equatable {
    /// What relates the two views.
    public enum Configuration: Int32, Sendable {
        /// Too few inliers: not a verified pair.
        case degenerate = 0
        /// E explains the matches: general motion with known intrinsics.
        case calibrated = 1
        /// F explains the matches, E does not (or no intrinsics were given).
        case uncalibrated = 2
        /// H explains the matches and there is translation.
        case planar = 3
        /// H explains the matches with (near) pure rotation.
        case panoramic = 4
        /// H explains the matches; without intrinsics planar and panoramic are not told apart.
        case planarOrPanoramic = 5
    }

    /// The chosen configuration.
    public var configuration: Configuration
    /// Inliers of the chosen model.
    public var numInliers: Int
    /// Inliers of the fundamental matrix.
    public var numFInliers: Int
    /// Inliers of the essential matrix (0 without intrinsics).
    public var numEInliers: Int
    /// Inliers of the homography.
    public var numHInliers: Int
    /// Fundamental matrix, row-major, x2^T F x1 = 0 in pixels.
    public var F: [Double]
    /// Essential matrix, row-major; valid when ``numEInliers`` > 0.
    public var E: [Double]
    /// Homography, row-major, x2 ~ H x1 in pixels.
    public var H: [Double]
    /// Rotation cam2_from_cam1, row-major (identity without intrinsics).
    public var rotation: [Double]
    /// Translation cam2_from_cam1, unit length (zero without intrinsics).
    public var translation: SIMD3<Double>
    /// Median triangulation angle of the inliers under the recovered pose, in degrees.
    public var medianTriangulationAngleDeg: Double
    /// For each correspondence, whether it is an inlier of the chosen model.
    public var inlierMask: [Bool]
}

/// Robust estimation of F, E and H between two views.
public enum TwoViewEstimator {
    /// Estimates the geometry of correspondences `points1[i]` <-> `points2[i]` (pixels).
    ///
    /// - Parameters:
    ///   - K1: Optional 3x3 row-major intrinsics of the first view; give both or neither.
    ///   - K2: Optional 3x3 row-major intrinsics of the second view.
    /// - Returns: The geometry; a pair that fails verification is ``TwoViewGeometry/Configuration/degenerate``.
    public static func estimate(
        points1: [SIMD2<Double>], points2: [SIMD2<Double>], K1: [Double]? = nil, K2: [Double]? = nil,
        options: TwoViewOptions = TwoViewOptions()
    ) throws -> TwoViewGeometry {
        try options.validate()
        guard points1.count == points2.count, points1.count <= Int(Int32.max) else {
            throw CVisionError(
                code: .invalidArgument,
                message: "TwoViewEstimator: \(points1.count) points in view 1, \(points2.count) in view 2")
        }
        guard (K1 == nil) == (K2 == nil), K1.map({ $0.count == 9 }) ?? true,
              K2.map({ $0.count == 9 }) ?? true else {
            throw CVisionError(
                code: .invalidArgument, message: "TwoViewEstimator: give both 3x3 K1 and K2 or neither")
        }
        var cOptions = options.cOptions()
        var result = cvis_two_view_geometry()
        var mask = [UInt8](repeating: 0, count: points1.count)
        let flat1 = points1.flatMap { [$0.x, $0.y] }
        let flat2 = points2.flatMap { [$0.x, $0.y] }
        let n = Int32(points1.count)
        if let K1, let K2 {
            try check(cvis_estimate_two_view(flat1, flat2, n, K1, K2, &cOptions, &result, &mask))
        } else {
            try check(cvis_estimate_two_view(flat1, flat2, n, nil, nil, &cOptions, &result, &mask))
        }
        return TwoViewGeometry(
            configuration: TwoViewGeometry.Configuration(rawValue: result.config) ?? .degenerate,
            numInliers: Int(result.num_inliers), numFInliers: Int(result.num_f_inliers),
            numEInliers: Int(result.num_e_inliers), numHInliers: Int(result.num_h_inliers),
            F: array(&result.F), E: array(&result.E), H: array(&result.H),
            rotation: array(&result.cam2_from_cam1_rotation),
            translation: SIMD3(
                result.cam2_from_cam1_translation.0, result.cam2_from_cam1_translation.1,
                result.cam2_from_cam1_translation.2),
            medianTriangulationAngleDeg: result.median_triangulation_angle_deg,
            inlierMask: mask.map { $0 != 0 })
    }

    /// Focal lengths in pixels of both views from a fundamental matrix (Bougnoux 1998).
    ///
    /// Throws ``CVisionError/Code/noConvergence`` when F is too degenerate for self-calibration.
    public static func focalLengths(
        fundamental F: [Double], principalPoint1: SIMD2<Double>, principalPoint2: SIMD2<Double>
    ) throws -> (focal1: Double, focal2: Double) {
        guard F.count == 9 else {
            throw CVisionError(code: .invalidArgument, message: "focalLengths: F must have 9 entries")
        }
        let p1 = [principalPoint1.x, principalPoint1.y]
        let p2 = [principalPoint2.x, principalPoint2.y]
        var focal1 = 0.0
        var focal2 = 0.0
        try check(cvis_focal_lengths_from_fundamental(F, p1, p2, &focal1, &focal2))
        return (focal1, focal2)
    }

    /// The relative pose (cam2_from_cam1, unit translation) a pair's fundamental matrix implies
    /// under intrinsics `K1`, `K2` (3x3 row-major), and how many of the correspondences
    /// (pixels) it puts in front of both cameras.
    public static func relativePose(
        fundamental F: [Double], K1: [Double], K2: [Double], points1: [SIMD2<Double>], points2: [SIMD2<Double>]
    ) throws -> (rotation: Matrix3, translation: SIMD3<Double>, inFront: Int) {
        guard F.count == 9, K1.count == 9, K2.count == 9, points1.count == points2.count,
              points1.count <= Int(Int32.max) else {
            throw CVisionError(code: .invalidArgument,
                               message: "relativePose: F, K1, K2 need 9 entries and the point lists one length")
        }
        var rotation = [Double](repeating: 0, count: 9), translation = [Double](repeating: 0, count: 3)
        var inFront: Int32 = 0
        try points1.withUnsafeBytes { p1 in
            try points2.withUnsafeBytes { p2 in
                try check(cvis_relative_pose_from_fundamental(
                    F, K1, K2, p1.bindMemory(to: Double.self).baseAddress, p2.bindMemory(to: Double.self).baseAddress,
                    Int32(points1.count), &rotation, &translation, &inFront))
            }
        }
        return (Matrix3(rowMajor: rotation), SIMD3(translation[0], translation[1], translation[2]), Int(inFront))
    }

    private static func array<T>(_ tuple: inout T) -> [Double] {
        withUnsafeBytes(of: &tuple) { Array($0.bindMemory(to: Double.self)) }
    }
}
