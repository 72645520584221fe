import Foundation

/// What the video input did, as `report.json`'s `video`: each source file, and every keyframe
/// with the frame it came from and why it was chosen.
public struct VideoSummary: Codable, Sendable, Equatable {
    /// One video file of the capture.
    public struct Source: Codable, Sendable, Equatable {
        /// The file's name (its path inside the capture for a folder or a zip).
        public var file: String
        /// FourCC of the video stream ("avc1": H.264, "hvc1"/"hev1": HEVC).
        public var codec: String
        /// Frame size as displayed (rotation applied), pixels.
        public var width: Int
        public var height: Int
        public var fps: Double
        /// Display rotation from the file's metadata, clockwise degrees, applied to the keyframes.
        public var rotationDeg: Int
        public var durationSeconds: Double
        public var framesDecoded: Int
        /// Frames the container declares (0 when it declares none).
        public var framesDeclared: Int
        /// Decoding stopped before the declared frames (a truncated or corrupt file): the
        /// keyframes come from the frames decoded, and ``warning`` says so.
        public var truncated: Bool
        /// What a person should know about this video ("clip.mp4: decoding stopped at frame 10 of
        /// 36 declared ..."); nil when nothing.
        public var warning: String?
        /// Motion between keyframes (fraction of the longer side) and the whole video's.
        public var motionStep: Double
        public var totalMotion: Double
        public var keyframes: Int
        /// Frames below the blur ratio of the local median sharpness: never keyframes.
        public var blurredFrames: [Int]

        public init(file: String, codec: String, width: Int, height: Int, fps: Double, rotationDeg: Int,
                    durationSeconds: Double, framesDecoded: Int, framesDeclared: Int, truncated: Bool,
                    warning: String?, motionStep: Double, totalMotion: Double, keyframes: Int,
                    blurredFrames: [Int]) {
            self.file = file
            self.codec = codec
            self.width = width
            self.height = height
            self.fps = fps
            self.rotationDeg = rotationDeg
            self.durationSeconds = durationSeconds
            self.framesDecoded = framesDecoded
            self.framesDeclared = framesDeclared
            self.truncated = truncated
            self.warning = warning
            self.motionStep = motionStep
            self.totalMotion = totalMotion
            self.keyframes = keyframes
            self.blurredFrames = blurredFrames
        }

        /// The warning for a video whose decoding stopped at `decoded` of `declared` frames, or
        /// nil when it decoded them all (or declares no count).
        package static func truncationWarning(file: String, decoded: Int, declared: Int) -> String? {
            guard decoded < declared else { return nil }
            return "\(file): decoding stopped at frame \(decoded) of \(declared) declared (truncated or corrupt file); "
                + "using the \(decoded) decoded frames"
        }

        package enum CodingKeys: String, CodingKey {
            case file, codec, width, height, fps, rotationDeg = "rotation_deg", durationSeconds = "duration_s"
            case framesDecoded = "frames_decoded", framesDeclared = "frames_declared", truncated, warning
            case motionStep = "motion_step", totalMotion = "total_motion"
            case keyframes, blurredFrames = "blurred_frames"
        }
    }

    /// One frame that became an image of the capture.
    public struct Keyframe: Codable, Sendable, Equatable {
        /// The image's name in the capture (and in `sparse/images.txt`).
        public var image: String
        /// The source ``Source/file`` it came from.
        public var source: String
        /// Index in decoding order, from 0, and presentation time.
        public var frame: Int
        public var timeSeconds: Double
        /// Variance of the Laplacian of its grey copy (``VideoFile/FrameMeasure/sharpness``).
        public var sharpness: Double
        public var reason: String

        public init(image: String, source: String, frame: Int, timeSeconds: Double, sharpness: Double,
                    reason: String) {
            self.image = image
            self.source = source
            self.frame = frame
            self.timeSeconds = timeSeconds
            self.sharpness = sharpness
            self.reason = reason
        }

        package enum CodingKeys: String, CodingKey {
            case image, source, frame, timeSeconds = "time_s", sharpness, reason
        }
    }

    public var sources: [Source]
    public var keyframes: [Keyframe]
    /// ``KeyframeSelection/Options/target`` of the run.
    public var targetKeyframes: Int
    /// The blur ratio frames were judged by.
    public var blurRatio: Double

    public init(sources: [Source], keyframes: [Keyframe], targetKeyframes: Int, blurRatio: Double) {
        self.sources = sources
        self.keyframes = keyframes
        self.targetKeyframes = targetKeyframes
        self.blurRatio = blurRatio
    }

    package enum CodingKeys: String, CodingKey {
        case sources, keyframes, targetKeyframes = "target_keyframes", blurRatio = "blur_ratio"
    }
}
