import CVision
import Foundation

/// A fixed camera's background learned from its own frames, and per-frame masks of what moved.
///
/// Each pixel's background is the densest cluster of its colours over the frames (Lab, lightness
/// weighted down and each frame's exposure divided out), its noise that cluster's spread; a frame's
/// pixel changed when it leaves the cluster by ``Options/changeThreshold`` noise units and is not a
/// shadow (darker, same chroma). Regions are cleaned, and the pixels that what changed encloses
/// but that never change themselves (an object turning in place covers them always) belong to the
/// object in every frame. Immutable once built; ``writeMask(_:to:)`` is thread-safe.
public final class BackgroundModel: @unchecked Sendable {
    /// How the model is built (the C core's defaults; `cvis_segment.h` says why).
    public struct Options: Sendable, Equatable {
        /// Longer side the model works at, px. Default 480: a turntable's object spans 100+ px.
        public var workingSide = 480
        /// Frames the background is estimated from, evenly spaced. Default 64.
        public var maxModelFrames = 64
        /// Noise units a pixel must leave its background by to count as changed. Default 4.
        public var changeThreshold = 4.0
        /// The smallest per-channel noise a pixel is credited with, colour levels of 255. Default 1.5.
        public var minNoise = 1.5
        /// Darker by a lightness ratio from this to 0.95 with the same chroma: a shadow. Default 0.5.
        public var shadowMinRatio = 0.5
        /// Changed regions smaller than this share of the frame are noise. Default 0.002.
        public var minRegionShare = 0.002

        public init() {}

        /// Option values as text, for a checkpoint key.
        public var keyText: String {
            "side=\(workingSide) frames=\(maxModelFrames) threshold=\(changeThreshold) noise=\(minNoise) "
                + "shadow=\(shadowMinRatio) region=\(minRegionShare)"
        }

        func cOptions(threads: Int) -> cvis_background_options {
            var options = cvis_background_options()
            cvis_background_options_default(&options)
            options.working_side = Int32(clamping: workingSide)
            options.max_model_frames = Int32(clamping: maxModelFrames)
            options.change_threshold = changeThreshold
            options.min_noise = minNoise
            options.shadow_min_ratio = shadowMinRatio
            options.min_region_share = minRegionShare
            options.num_threads = Int32(clamping: max(1, threads))
            return options
        }
    }

    /// What the model found over all frames.
    public struct Stats: Sendable, Equatable {
        /// Frames in the model.
        public var frames: Int
        /// Working size, px.
        public var width: Int, height: Int
        /// Share of the textured background pixels that stay within noise of their background in
        /// 80 % of the frames: most for a fixed camera, almost none for a moving one.
        public var stableShare: Double
        /// Share of the frame whose background has texture.
        public var texturedShare: Double
        /// Share of all pixels that stay within noise in 80 % of the frames.
        public var stillShare: Double
        /// Share of the frame that is textured, stable and never changed: the still structure a
        /// fixed camera keeps (a backdrop's edges, a plate's rim); a moving camera changes every
        /// textured pixel in some frame.
        public var stillStructureShare: Double
        /// Share of the frame the object covers in every frame without ever changing there.
        public var coreShare: Double
        /// Share of the frame that changed in some frame, core included.
        public var envelopeShare: Double
    }

    private let handle: OpaquePointer
    /// What the model found.
    public let stats: Stats

    deinit { cvis_background_model_destroy(handle) }

    /// Builds the model from the frames (one upright size, at least 3) on `threads` threads.
    /// - Throws: ``CVisionError`` naming a frame that cannot be read, or one of another shape.
    public init(images: [URL], options: Options = Options(), threads: Int = 1) throws {
        var cOptions = options.cOptions(threads: threads)
        var handle: OpaquePointer?
        try withCStringArray(images.map(\.path)) { paths in
            try check(cvis_background_model_create(paths, Int32(clamping: images.count), &cOptions, &handle))
        }
        guard let handle else { throw CVisionError(code: .internalError, message: "background model: no handle") }
        self.handle = handle
        var s = cvis_background_stats()
        cvis_background_model_stats(handle, &s)
        stats = Stats(frames: Int(s.frames), width: Int(s.width), height: Int(s.height), stableShare: s.stable_share,
                      texturedShare: s.textured_share, stillShare: s.still_share,
                      stillStructureShare: s.still_structure_share, coreShare: s.core_share,
                      envelopeShare: s.envelope_share)
    }

    /// Writes frame `index`'s mask as an 8-bit PNG at the frame's full upright size (255 =
    /// object, edges snapped to the image), atomically; returns the share of the frame it keeps.
    public func writeMask(_ index: Int, to url: URL) throws -> Double {
        var share = 0.0
        try check(cvis_background_model_write_mask(handle, Int32(clamping: index), url.path, &share))
        return share
    }

    /// Frame `index`'s mask at the working size, row by row (255 = object).
    public func workingMask(_ index: Int) throws -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: stats.width * stats.height)
        try mask.withUnsafeMutableBufferPointer { try check(cvis_background_model_working_mask(handle, Int32(clamping: index), $0.baseAddress)) }
        return mask
    }
}
