import CVision
import PhotogrammetryCore

/// Multi-view triangulation of many tracks in one C call, on normalised coordinates.
///
/// Per track (`cvis_triangulate_tracks`): a DLT estimate over all views, Gauss-Newton on the
/// normalised reprojection error, rejection of the worst view while any exceeds `maxError`
/// (re-solving each time), then positive depth in every kept view and a largest pairwise ray
/// angle of at least `minAngleDegrees`.
public enum Triangulator {
    /// Options of ``triangulate(_:poses:options:)``.
    public struct Options: Equatable, Sendable {
        /// The largest angle between two kept rays must reach this, in degrees. Default 1.5.
        public var minAngleDegrees = CoreDefaults.triangulation.min_angle_deg
        /// Per-view reprojection threshold in normalised units (pixels / focal). Default 0.004.
        public var maxError = CoreDefaults.triangulation.max_error
        /// Views within `maxError` needed to accept a point (at least 2). Default 2.
        public var minNumViews = Int(CoreDefaults.triangulation.min_num_views)

        public init() {}

        /// The options as the C core takes them.
        func cOptions() -> cvis_triangulation_options {
            cvis_triangulation_options(min_angle_deg: minAngleDegrees, max_error: maxError,
                                       min_num_views: Int32(clamping: minNumViews))
        }

        /// Throws ``CVisionError`` (`.invalidArgument`) naming the first value out of range.
        public func validate() throws {
            guard minAngleDegrees >= 0 else { throw CVisionError.invalidOption("minAngleDegrees must be >= 0") }
            guard maxError > 0 else { throw CVisionError.invalidOption("maxError must be positive") }
            guard minNumViews >= 2 else { throw CVisionError.invalidOption("minNumViews must be at least 2") }
        }
    }

    /// One observation of a track: the index of its pose in `poses` and the normalised point.
    public struct Observation: Equatable, Sendable {
        public var poseIndex: Int
        public var normalized: SIMD2<Double>
        public init(poseIndex: Int, normalized: SIMD2<Double>) {
            self.poseIndex = poseIndex
            self.normalized = normalized
        }
    }

    /// Tracks laid out flat (struct of arrays), as the C call takes them: build one with
    /// ``append(poseIndex:normalized:)`` and ``endTrack()`` to avoid an array per track.
    public struct TrackBatch: Sendable {
        /// Track i owns observations `offsets[i] ..< offsets[i + 1]`.
        public private(set) var offsets: [Int32] = [0]
        public private(set) var poseIndices: [Int32] = []
        public private(set) var normalized: [SIMD2<Double>] = []

        public init() {}

        /// The number of closed tracks.
        public var count: Int { offsets.count - 1 }

        /// Adds an observation to the open track.
        public mutating func append(poseIndex: Int, normalized point: SIMD2<Double>) {
            poseIndices.append(Int32(clamping: poseIndex))
            normalized.append(point)
        }

        /// Closes the open track (an empty track is allowed and never valid).
        public mutating func endTrack() { offsets.append(Int32(poseIndices.count)) }

        /// Adds a whole track.
        public mutating func append(track: [Observation]) {
            for o in track { append(poseIndex: o.poseIndex, normalized: o.normalized) }
            endTrack()
        }
    }

    /// The outcome for one track.
    public struct Result: Equatable, Sendable {
        /// The point in world coordinates, nil when the track failed a check.
        public var point: SIMD3<Double>?
        /// Per observation, whether it was kept (all false when `point` is nil).
        public var inliers: [Bool]
    }

    /// Triangulates tracks given as arrays of observations.
    ///
    /// - Parameters:
    ///   - tracks: per track, its observations (pose index into `poses`, normalised point).
    ///   - poses: `camFromWorld` of each pose index.
    /// - Throws: ``CVisionError`` `.invalidArgument` for a pose index out of range or bad options.
    public static func triangulate(_ tracks: [[Observation]], poses: [Rigid3],
                                   options: Options = Options()) throws -> [Result] {
        var batch = TrackBatch()
        for track in tracks { batch.append(track: track) }
        return try triangulate(batch, poses: poses, options: options)
    }

    /// Triangulates a flat batch of tracks (one C call).
    public static func triangulate(_ batch: TrackBatch, poses: [Rigid3],
                                   options: Options = Options()) throws -> [Result] {
        try options.validate()
        let numTracks = batch.count
        var flatPoses = [Double]()
        flatPoses.reserveCapacity(poses.count * 12)
        for pose in poses {
            let r = pose.rotation.rows, t = pose.translation
            flatPoses += [r.0.x, r.0.y, r.0.z, t.x, r.1.x, r.1.y, r.1.z, t.y, r.2.x, r.2.y, r.2.z, t.z]
        }
        var cOptions = options.cOptions()
        var points = [Double](repeating: .nan, count: numTracks * 3)
        var valid = [UInt8](repeating: 0, count: numTracks)
        var inliers = [UInt8](repeating: 0, count: batch.poseIndices.count)
        try batch.offsets.withUnsafeBufferPointer { offsets in
            try batch.poseIndices.withUnsafeBufferPointer { poseIndices in
                try batch.normalized.withUnsafeBytes { xy in
                    try check(cvis_triangulate_tracks(
                        Int32(numTracks), offsets.baseAddress, poseIndices.baseAddress,
                        xy.baseAddress?.assumingMemoryBound(to: Double.self), Int32(poses.count),
                        flatPoses, &cOptions, &points, &valid, &inliers))
                }
            }
        }
        return (0..<numTracks).map { i in
            let range = Int(batch.offsets[i])..<Int(batch.offsets[i + 1])
            let point = valid[i] != 0 ? SIMD3(points[3 * i], points[3 * i + 1], points[3 * i + 2]) : nil
            return Result(point: point, inliers: inliers[range].map { $0 != 0 })
        }
    }
}
