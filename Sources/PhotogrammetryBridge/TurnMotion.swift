import CVision
import Foundation
import PhotogrammetryCore

/// A fixed camera watching a turntable, with points on the plate: circular motion adjusted to
/// point tracks (`cvis_turn.h`).
///
/// The turn's frame has z along the axis and the camera centre at (0, -1, 0): the distance to
/// the axis is the unit, the origin the axis point at the camera's height. Frame i sees the plate
/// turned by `angles[i]` about z: camFromPlate_i = (R_rig Rz(angle_i), R_rig (0, 1, 0)).
public struct TurnMotion: Sendable {
    /// How the frames' angles may move in ``adjust(_:refineFocalLength:lossScale:threads:)``.
    public enum Steps: Int32, Sendable, CaseIterable {
        /// angle_i = i × step, the step refined.
        case even = 0
        /// angle_i = i × (±360° / frames): one whole turn, its last frame a step before its first.
        case evenClosed = 1
        /// Every angle refined but the first.
        case free = 2
    }

    /// One observation of a point in a frame, px.
    public struct Observation: Sendable, Equatable {
        public var frame: Int
        public var point: Int
        public var xy: SIMD2<Double>

        public init(frame: Int, point: Int, xy: SIMD2<Double>) {
            self.frame = frame
            self.point = point
            self.xy = xy
        }
    }

    /// What an adjustment did: Ceres's costs (half the sum of robust squared residuals).
    public struct Summary: Sendable, Equatable {
        public var initialCost: Double
        public var finalCost: Double
        public var iterations: Int
        public var isUsable: Bool
    }

    /// R_rig, angle-axis.
    public var rig: SIMD3<Double>
    /// The frames' angles, radians.
    public var angles: [Double]
    /// Px, one for all frames.
    public var focalLength: Double
    /// Px, held.
    public var principalPoint: SIMD2<Double>
    /// In the turn's frame; NaN where a point has no position.
    public var points: [SIMD3<Double>]
    public var observations: [Observation]

    public init(rig: SIMD3<Double>, angles: [Double], focalLength: Double, principalPoint: SIMD2<Double>,
                points: [SIMD3<Double>], observations: [Observation]) {
        self.rig = rig
        self.angles = angles
        self.focalLength = focalLength
        self.principalPoint = principalPoint
        self.points = points
        self.observations = observations
    }

    /// The rig of a camera at (0, -1, 0) looking at the axis, `elevation` radians down from level,
    /// unrolled.
    public static func rig(elevation: Double) -> SIMD3<Double> {
        let s = sin(elevation), c = cos(elevation)
        return Rotation.angleAxis(Matrix3(rows: SIMD3<Double>(1, 0, 0), SIMD3<Double>(0, -s, -c), SIMD3<Double>(0, c, -s)))
    }

    /// Frame `i`'s pose in the turn's frame.
    public func camFromPlate(_ i: Int) -> Rigid3 {
        let rigRotation = Rotation.matrix(angleAxis: rig)
        return Rigid3(rotation: rigRotation * Rotation.matrix(angleAxis: SIMD3(0, 0, angles[i])),
                      translation: rigRotation * SIMD3(0, 1, 0))
    }

    /// The Cauchy loss's scale, px, of ``adjust(_:refineFocalLength:lossScale:threads:)``. Default 1.
    public static var defaultLossScale: Double { CoreDefaults.turn.loss_scale }

    /// Refines the rig, the focal length, the angles (as `steps` says) and the points with a
    /// Cauchy loss of `lossScale` px. Points that are NaN take no part.
    /// - Throws: ``CVisionError`` when no observation has a finite point.
    public mutating func adjust(_ steps: Steps, refineFocalLength: Bool = true,
                                lossScale: Double = TurnMotion.defaultLossScale, threads: Int = 1) throws -> Summary {
        var options = CoreDefaults.turn
        options.steps = steps.rawValue
        options.loss_scale = lossScale
        options.refine_focal_length = refineFocalLength ? 1 : 0
        options.num_threads = Int32(clamping: max(1, threads))
        var summary = cvis_turn_summary()
        try withProblem { try check(cvis_turn_adjust(&$0, &options, &summary)) }
        return Summary(initialCost: summary.initial_cost, finalCost: summary.final_cost,
                       iterations: Int(summary.iterations), isUsable: summary.usable != 0)
    }

    /// Each point from its observations under the motion (linear, all views at once); NaN for a
    /// point seen from fewer than 2 frames or behind a camera that sees it.
    public mutating func triangulate() throws {
        try withProblem { try check(cvis_turn_triangulate(&$0)) }
    }

    /// Each observation's reprojection error, px (infinity when its point is NaN or behind).
    public mutating func reprojectionErrors() throws -> [Double] {
        var errors = [Double](repeating: .infinity, count: observations.count)
        try errors.withUnsafeMutableBufferPointer { out in
            try withProblem { try check(cvis_turn_reprojection_errors(&$0, out.baseAddress)) }
        }
        return errors
    }

    /// Calls `body` with the C problem over this motion's storage, and takes back what it refined.
    private mutating func withProblem(_ body: (inout cvis_turn_problem) throws -> Void) throws {
        precondition(angles.count >= 2, "a turn has at least 2 frames")
        var flatPoints = points.flatMap { [$0.x, $0.y, $0.z] }
        let frames = observations.map { Int32(clamping: $0.frame) }
        let pointIndices = observations.map { Int32(clamping: $0.point) }
        let xy = observations.flatMap { [$0.xy.x, $0.xy.y] }
        var problem = cvis_turn_problem()
        problem.num_frames = Int32(clamping: angles.count)
        problem.rig = (rig.x, rig.y, rig.z)
        problem.focal_length = focalLength
        problem.principal_point = (principalPoint.x, principalPoint.y)
        problem.num_points = Int32(clamping: points.count)
        problem.num_observations = Int32(clamping: observations.count)
        try angles.withUnsafeMutableBufferPointer { anglePointer in
            try flatPoints.withUnsafeMutableBufferPointer { pointPointer in
                try frames.withUnsafeBufferPointer { framePointer in
                    try pointIndices.withUnsafeBufferPointer { indexPointer in
                        try xy.withUnsafeBufferPointer { xyPointer in
                            problem.angles = anglePointer.baseAddress
                            problem.points3D = pointPointer.baseAddress
                            problem.obs_frame = framePointer.baseAddress
                            problem.obs_point = indexPointer.baseAddress
                            problem.obs_xy = xyPointer.baseAddress
                            try body(&problem)
                        }
                    }
                }
            }
        }
        rig = SIMD3(problem.rig.0, problem.rig.1, problem.rig.2)
        focalLength = problem.focal_length
        points = (0..<points.count).map { SIMD3(flatPoints[3 * $0], flatPoints[3 * $0 + 1], flatPoints[3 * $0 + 2]) }
    }
}
