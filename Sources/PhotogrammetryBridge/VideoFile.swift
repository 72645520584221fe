import CVision
import Foundation
import PhotogrammetryCore

/// A video file read by the core through OpenCV's video I/O (FFmpeg): its container's info, every
/// frame's measures for keyframe selection, and chosen frames written as upright JPEG files.
public enum VideoFile {
    /// What a video's container says.
    public struct Info: Sendable, Equatable {
        /// Frame size as displayed (rotation applied), pixels.
        public var width: Int
        public var height: Int
        /// Average frame rate; 0 when the container gives none.
        public var fps: Double
        /// The container's frame count (an estimate; ``measure(_:progress:)`` counts them).
        public var frameCountEstimate: Int
        /// Display rotation, clockwise degrees (0, 90, 180, 270), applied to written frames.
        public var rotationDegrees: Int
        /// The stream's FourCC: "avc1" (H.264), "hvc1"/"hev1" (HEVC), "mp4v", ...
        public var codec: String
    }

    /// One decoded frame's measures (``cvis_video_frame_measure``).
    public struct FrameMeasure: Sendable, Equatable {
        /// Variance of the Laplacian of a grey copy, 640 px on its longer side: higher is sharper.
        public var sharpness: Double
        /// How far the picture moved since the previous frame, a fraction of the longer side: the
        /// change of the tracked points' median distance from a reference frame renewed every 2 %
        /// of motion (negative when the camera moves back; shake below 2 % cancels out).
        public var motion: Double
        /// Fraction of the points found at the last reseed still tracked.
        public var tracked: Double
        /// Presentation time, seconds.
        public var time: Double
        /// Tracking from the previous frame failed (a cut, a jump): the motion is unknown.
        public var lost: Bool

        public init(sharpness: Double, motion: Double, tracked: Double = 1, time: Double = 0, lost: Bool = false) {
            self.sharpness = sharpness
            self.motion = motion
            self.tracked = tracked
            self.time = time
            self.lost = lost
        }
    }

    /// The container's info, without decoding a frame.
    /// - Throws: ``CVisionError`` naming the file when it cannot be opened as a video.
    public static func probe(_ url: URL) throws -> Info {
        var info = cvis_video_info()
        try check(cvis_video_probe(url.path, &info))
        let codec = withUnsafeBytes(of: info.codec) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        return Info(width: Int(info.width), height: Int(info.height), fps: info.fps,
                    frameCountEstimate: Int(info.frame_count), rotationDegrees: Int(info.rotation_deg), codec: codec)
    }

    /// Decodes every frame in order and measures it.
    /// - Parameter progress: called with the frames decoded so far; return false to cancel
    ///   (``PipelineError/cancelled`` is thrown).
    /// - Throws: ``CVisionError`` naming the file when it cannot be opened or no frame decodes.
    public static func measure(_ url: URL, progress: ((Int) -> Bool)? = nil) throws -> [FrameMeasure] {
        var options = cvis_video_measure_options()
        cvis_video_measure_options_default(&options)
        var buffer: OpaquePointer?
        var frames: Int64 = 0
        try withProgress(progress) { callback, context in
            try check(cvis_video_measure(url.path, &options, callback, context, &buffer, &frames))
        }
        defer { cvis_buffer_destroy(buffer) }
        guard let bytes = cvis_buffer_data(buffer) else { return [] }
        return UnsafeRawPointer(bytes).withMemoryRebound(to: cvis_video_frame_measure.self, capacity: Int(frames)) { measures in
            (0..<Int(frames)).map { i in
                let m = measures[i]
                return FrameMeasure(sharpness: m.sharpness, motion: m.motion, tracked: m.tracked, time: m.time_s, lost: m.lost != 0)
            }
        }
    }

    /// Decodes the video again and writes frame `frames[k]` (ascending) to `files[k]` as an
    /// upright JPEG of `quality`.
    public static func writeFrames(_ url: URL, frames: [Int], to files: [URL], quality: Int,
                                   progress: ((Int) -> Bool)? = nil) throws {
        precondition(frames.count == files.count)
        let indices = frames.map { Int64($0) }
        try withCStringArray(files.map(\.path)) { paths in
            try withProgress(progress) { callback, context in
                try check(cvis_video_write_frames(url.path, indices, paths, Int32(indices.count), Int32(quality), callback, context))
            }
        }
    }

    /// Boxes `progress` for the core's callback; a cancel becomes ``PipelineError/cancelled``.
    private static func withProgress(_ progress: ((Int) -> Bool)?,
                                     _ body: (cvis_video_progress?, UnsafeMutableRawPointer?) throws -> Void) throws {
        guard let progress else { return try body(nil, nil) }
        let box = ProgressBox(progress)
        let context = Unmanaged.passUnretained(box).toOpaque()
        do {
            try withExtendedLifetime(box) {
                try body({ done, context in
                    let box = Unmanaged<ProgressBox>.fromOpaque(context!).takeUnretainedValue()
                    box.cancelled = !box.body(Int(done))
                    return box.cancelled ? 1 : 0
                }, context)
            }
        } catch where box.cancelled {
            throw PipelineError.cancelled
        }
    }

    private final class ProgressBox {
        package let body: (Int) -> Bool
        package var cancelled = false
        package init(_ body: @escaping (Int) -> Bool) { self.body = body }
    }
}
