import CVision
import Foundation

/// Point tracks through a fixed camera's frames of a turning object, in the frames' order:
/// corners inside each frame's mask followed from frame to frame by pyramidal Lucas-Kanade
/// (`cvis_turn.h` says why: a texture-poor object's faint corners track where their descriptors
/// would not match).
public struct TurnTracks: Sendable {
    /// How tracks are followed (the C core's defaults; `cvis_turn.h` says why).
    public struct Options: Sendable, Equatable {
        /// Longer side tracked at, px. Default 1024.
        public var workingSide = Int(CoreDefaults.turnTracks.working_side)
        /// New corners a frame. Default 2000.
        public var maxCorners = Int(CoreDefaults.turnTracks.max_corners)
        /// A corner's strength relative to the frame's strongest. Default 0.001.
        public var qualityLevel = CoreDefaults.turnTracks.quality_level
        /// Px a point may miss its start by, tracked forward and back. Default 0.5.
        public var maxRoundTrip = CoreDefaults.turnTracks.max_round_trip
        /// Px a point must move a frame. Default 0.3.
        public var minMotion = CoreDefaults.turnTracks.min_motion
        /// First frames tracking continues into after the last. Default 6.
        public var seamFrames = Int(CoreDefaults.turnTracks.seam_frames)

        public init() {}

        /// Option values as text, for a checkpoint key.
        public var keyText: String {
            "side=\(workingSide) corners=\(maxCorners) quality=\(qualityLevel) roundtrip=\(maxRoundTrip) "
                + "motion=\(minMotion) seam=\(seamFrames)"
        }
    }

    /// One observation: a track seen in a frame (an index into the frames given) at a pixel.
    public struct Observation: Sendable, Equatable {
        public var track: Int
        public var frame: Int
        public var xy: SIMD2<Double>
    }

    /// The observations, track by track, each track's in frame order of tracking.
    public var observations: [Observation]
    /// Tracks (each seen in at least 2 frames).
    public var count: Int

    public init(observations: [Observation], count: Int) {
        self.observations = observations
        self.count = count
    }

    /// Tracks through `images` (one upright size, at least 3) with their masks (8-bit, nonzero =
    /// the object).
    /// - Throws: ``CVisionError`` naming a frame or mask that cannot be read, or a frame of
    ///   another shape.
    public init(images: [URL], masks: [URL], options: Options = Options(), threads: Int = 1) throws {
        precondition(images.count == masks.count, "one mask a frame")
        var c = CoreDefaults.turnTracks
        c.working_side = Int32(clamping: options.workingSide)
        c.max_corners = Int32(clamping: options.maxCorners)
        c.quality_level = options.qualityLevel
        c.max_round_trip = options.maxRoundTrip
        c.min_motion = options.minMotion
        c.seam_frames = Int32(clamping: options.seamFrames)
        c.num_threads = Int32(clamping: max(1, threads))
        var result: UnsafeMutablePointer<cvis_turn_tracks>?
        try withCStringArray(images.map(\.path)) { imagePaths in
            try withCStringArray(masks.map(\.path)) { maskPaths in
                try check(cvis_turn_tracks_create(imagePaths, maskPaths, Int32(clamping: images.count), &c, &result))
            }
        }
        guard let result else { throw CVisionError(code: .internalError, message: "turn tracks: no result") }
        defer { cvis_turn_tracks_destroy(result) }
        let tracks = result.pointee
        observations = (0..<Int(tracks.num_observations)).map { k in
            Observation(track: Int(tracks.track[k]), frame: Int(tracks.frame[k]),
                        xy: SIMD2(tracks.xy[2 * k], tracks.xy[2 * k + 1]))
        }
        count = Int(tracks.num_tracks)
    }
}
