import PhotogrammetryCore
import PhotogrammetryBridge

/// The mapper's view of the geometric estimators in the C++ core, in one place.
extension IncrementalMapper {
    /// Robust PnP on normalised coordinates; the threshold is in normalised units.
    func estimateAbsolutePose(_ pointsInWorld: [SIMD3<Double>], _ normalized: [SIMD2<Double>],
                              maxError: Double) throws -> (Rigid3, [Bool]) {
        var pnp = AbsolutePoseEstimator.Options()
        pnp.maxError = maxError
        pnp.minNumInliers = options.absolutePoseMinNumInliers
        pnp.seed = options.seed
        let result = try AbsolutePoseEstimator.estimate(pointsInWorld: pointsInWorld,
                                                        normalizedPoints: normalized, options: pnp)
        return (result.camFromWorld, result.inliers)
    }

    /// Relative pose from the essential matrix; the threshold is in normalised units.
    func estimateRelativePose(_ points1: [SIMD2<Double>], _ points2: [SIMD2<Double>],
                              maxError: Double) throws -> (Rigid3, [Bool]) {
        var relative = RelativePoseEstimator.Options()
        relative.maxError = maxError
        relative.seed = options.seed
        let result = try RelativePoseEstimator.estimate(normalizedPoints1: points1, normalizedPoints2: points2,
                                                        options: relative)
        return (result.cam2FromCam1, result.inliers)
    }

    /// Triangulates a batch of tracks; each observation names a pose index and a normalised point.
    func triangulateBatch(_ observations: [[(pose: Int, point: SIMD2<Double>)]], poses: [Rigid3],
                          maxError: Double) -> [(point: SIMD3<Double>?, inliers: [Bool])] {
        var triangulation = Triangulator.Options()
        triangulation.maxError = maxError
        triangulation.minAngleDegrees = options.triangulationMinAngleDeg
        let tracks = observations.map { $0.map { Triangulator.Observation(poseIndex: $0.pose, normalized: $0.point) } }
        guard let results = try? Triangulator.triangulate(tracks, poses: poses, options: triangulation) else {
            return observations.map { (nil, Array(repeating: false, count: $0.count)) }
        }
        return results.map { ($0.point, $0.inliers) }
    }
}
