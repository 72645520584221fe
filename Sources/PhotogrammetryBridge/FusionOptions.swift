import CVision

/// Options of depth-map fusion (``MVSWorkspace/fuse(depthMaps:neighbours:options:output:)``).
///
/// A pixel of a depth map becomes a point when enough neighbouring views agree with it; these
/// are the limits of agreement. They mirror `cvis_fusion_options` (COLMAP's StereoFusion uses
/// the same reprojection and depth limits; two views and 30° give a better cloud than three
/// views and 10°, docs/benchmarks.md).
public struct FusionOptions: Sendable, Equatable {
    /// Views that must agree on a point, the reference view included. Default 2: the reference
    /// and one neighbour (rooms ask for ``DenseOptions/roomFusionMinViews``).
    public var minNumViews = Int(CoreDefaults.fusion.min_num_views)
    /// Largest distance in pixels between a reference pixel and its re-projection through a
    /// neighbour's depth. Default 2.
    public var maxReprojectionError = CoreDefaults.fusion.max_reprojection_error
    /// Largest relative difference between the depth a neighbour measured and the depth the
    /// reference implies. Default 0.01.
    public var maxDepthError = CoreDefaults.fusion.max_depth_error
    /// Largest angle between the reference's and a neighbour's normal, degrees; a depth map
    /// without normals (zero vectors) does not veto. Default 30.
    public var maxNormalErrorDeg = CoreDefaults.fusion.max_normal_error_deg
    /// Threads evaluating the rows of a view; the output does not depend on it. Default 2.
    public var numThreads = Int(CoreDefaults.fusion.num_threads)
    /// Largest relative difference between two sensor depths (a phone's LiDAR is good to 1–2 %
    /// a pixel); the re-projection limit grows in the same proportion. Default 0.03.
    public var maxSensorDepthError = CoreDefaults.fusion.max_sensor_depth_error
    /// Views that must agree on a point made from sensor depth, the reference included. Default
    /// 2: each frame's sensor depth is its own metric measurement, so a second frame agreeing
    /// within ``maxSensorDepthError`` confirms it as a third photograph confirms a matched depth
    /// (rooms keep this while their photographs need ``DenseOptions/roomFusionMinViews``).
    public var minNumSensorViews = Int(CoreDefaults.fusion.min_num_sensor_views)
    /// Views, besides its photometric neighbours, that a view's sensor depth is checked against:
    /// those whose sensor depth shares the most surface with its own. Photometric neighbours are
    /// ranked by shared sparse points and triangulation angle; a plain wall has few of the one
    /// and the sensor needs none of the other. Default 8.
    public var numSensorNeighbours = Int(CoreDefaults.fusion.num_sensor_neighbours)

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        func fail(_ message: String) -> CVisionError {
            CVisionError(code: .invalidArgument, message: "FusionOptions.\(message)")
        }
        guard minNumViews >= 1, minNumViews <= Int(Int32.max) else { throw fail("minNumViews must be >= 1") }
        guard maxReprojectionError > 0, maxReprojectionError.isFinite else {
            throw fail("maxReprojectionError must be > 0")
        }
        guard maxDepthError > 0, maxDepthError.isFinite else { throw fail("maxDepthError must be > 0") }
        guard maxNormalErrorDeg > 0, maxNormalErrorDeg <= 180 else {
            throw fail("maxNormalErrorDeg must be in (0, 180]")
        }
        guard (1...256).contains(numThreads) else { throw fail("numThreads must be in 1...256") }
        guard maxSensorDepthError > 0, maxSensorDepthError.isFinite else { throw fail("maxSensorDepthError must be > 0") }
        guard minNumSensorViews >= 1, minNumSensorViews <= Int(Int32.max) else {
            throw fail("minNumSensorViews must be >= 1")
        }
        guard numSensorNeighbours >= 0, numSensorNeighbours <= 256 else {
            throw fail("numSensorNeighbours must be in 0...256")
        }
    }

    func cOptions() -> cvis_fusion_options {
        cvis_fusion_options(
            min_num_views: Int32(minNumViews), max_reprojection_error: maxReprojectionError,
            max_depth_error: maxDepthError, max_normal_error_deg: maxNormalErrorDeg,
            num_threads: Int32(numThreads), max_sensor_depth_error: maxSensorDepthError,
            min_num_sensor_views: Int32(minNumSensorViews), num_sensor_neighbours: Int32(numSensorNeighbours))
    }
}
