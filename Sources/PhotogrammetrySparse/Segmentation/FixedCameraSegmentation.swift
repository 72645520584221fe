import Foundation
import PhotogrammetryBridge
import PhotogrammetryCore

/// A fixed camera's capture segmented from its own background: when the frames' background
/// stands still (a turntable before a phone on a tripod), what moves is the object, and its
/// masks are written as a user's would be (`<stem>.png`, 8-bit, 255 = object).
///
/// The decision comes first and from the pixels alone: a fixed camera keeps still structure (a
/// backdrop's texture, a table's edge, a plate's rim) that never changes in any frame; a moving
/// camera changes every textured pixel in some frame.
public enum FixedCameraSegmentation {
    /// What decides whether masks are made, and how.
    public struct Options: Sendable, Equatable {
        /// Segment fixed-camera captures without masks (`--auto-mask`). Default true: the masks
        /// make a textured object before a plain backdrop register (AUC@5 12 to 98), and where
        /// they cost a capture its poses the pose check sets them aside (``MaskCheckStage`` in the
        /// pipeline; docs/algorithms/segmentation.md#measured).
        public var enabled = true
        /// The background model (``BackgroundModel/Options``).
        public var model = BackgroundModel.Options()
        /// Fewest frames a background is learnt from. Default 8: with fewer, an object covering a
        /// pixel in 3 of them already outvotes the background there.
        public var minFrames = 8
        /// Share of the frame that must be still structure (textured, never changing) for a
        /// fixed camera. Default 0.005: fixed-camera captures measure 0.03 (a plain dark backdrop:
        /// only its edges and the plate's rim) to 0.58, orbits, walk-arounds and videos 0.0000 to
        /// 0.0003 (docs/algorithms/segmentation.md), so the line sits 6x below the one and 16x above the other.
        public var minStillStructureShare = 0.005
        /// Masks keeping more than this share of a frame on average are not an object's. Default 0.9.
        public var maxObjectShare = 0.9

        public init() {}

        /// The fields that decide the masks, as text for a checkpoint key.
        public var keyText: String {
            guard enabled else { return "off" }
            return model.keyText + " min_frames=\(minFrames) still_structure=\(minStillStructureShare) "
                + "max_object=\(maxObjectShare)"
        }
    }

    /// The masks made (file name relative to the folder, per image; nil where none) and what
    /// the report says.
    public struct Result: Sendable {
        public var summary: AutomaticMasksSummary
        public var files: [String?]
    }

    /// The mask file of an image, relative to the masks folder: what ``MaskSource/maskURL(for:)`` finds.
    public static func maskName(_ image: CaptureImage) -> String {
        (image.name as NSString).deletingPathExtension + ".png"
    }

    /// Builds the background model of the capture's frames and, for a fixed camera, writes every
    /// frame's mask into `folder` (created when needed; files written atomically).
    /// Progress goes to `progress` under `stage`, one step per mask; a cancel there throws
    /// ``PipelineError/cancelled``.
    public static func run(capture: Capture, folder: URL, options: Options, threads: Int,
                           progress: ProgressSink? = nil, stage: String = "segmentation") throws -> Result {
        let images = capture.images
        let none = { (reason: String) in Result(summary: AutomaticMasksSummary(used: false, reason: reason), files: images.map { _ in nil }) }
        guard options.enabled else { return none("turned off (--auto-mask off)") }
        guard images.count >= options.minFrames else {
            return none("\(images.count) frames: a background is learnt from \(options.minFrames) or more")
        }
        if let first = images.first, let other = images.first(where: { $0.width != first.width || $0.height != first.height }) {
            return none("\(other.name) is \(other.width)x\(other.height), \(first.name) \(first.width)x\(first.height): not one fixed camera")
        }
        let model = try BackgroundModel(images: images.map(\.url), options: options.model, threads: threads)
        let stats = model.stats
        let measured = { (used: Bool, reason: String) in
            AutomaticMasksSummary(used: used, reason: reason, frames: stats.frames, stableShare: stats.stableShare,
                                  stillStructureShare: stats.stillStructureShare)
        }
        guard stats.stillStructureShare >= options.minStillStructureShare else {
            let reason = String(format: "a moving camera: %.2f %% of the frame is still structure (textured, never changing; a fixed "
                                + "camera keeps %.1f %% or more)", 100 * stats.stillStructureShare, 100 * options.minStillStructureShare)
            return Result(summary: measured(false, reason), files: images.map { _ in nil })
        }
        let counter = ProgressCounter(stage: stage, total: images.count, sink: progress)
        let shares = try writeMasks(model, images: images, folder: folder, threads: threads, counter: counter)
        let meanShare = shares.reduce(0, +) / Double(max(1, shares.count))
        guard meanShare <= options.maxObjectShare, meanShare > 0 else {
            let reason = String(format: "what moved keeps %.0f %% of the frame on average: not one object before a still background",
                                100 * meanShare)
            for image in images { try? FileManager.default.removeItem(at: folder.appendingPathComponent(maskName(image))) }
            return Result(summary: measured(false, reason), files: images.map { _ in nil })
        }
        var summary = measured(true, String(format: "a fixed camera: %.1f %% of the frame is still structure (textured, never "
                                            + "changing), %.0f %% of the textured background stayed still",
                                            100 * stats.stillStructureShare, 100 * stats.stableShare))
        summary.meanObjectShare = meanShare
        summary.coreShare = stats.coreShare
        summary.folder = folder.lastPathComponent
        return Result(summary: summary, files: images.map(maskName))
    }

    /// Writes every frame's mask; returns the share of each frame its mask keeps.
    static func writeMasks(_ model: BackgroundModel, images: [CaptureImage], folder: URL, threads: Int,
                           counter: ProgressCounter) throws -> [Double] {
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in Set(images.map { (maskName($0) as NSString).deletingLastPathComponent }) where !name.isEmpty {
            try fm.createDirectory(at: folder.appendingPathComponent(name, isDirectory: true), withIntermediateDirectories: true)
        }
        let shares = ResultSlots<Double>(count: images.count)
        let failure = FirstError()
        parallelFor(images.count, threads: threads) { i in
            guard !failure.isSet else { return }
            do {
                try counter.checkCancelled()
                shares[i] = try model.writeMask(i, to: folder.appendingPathComponent(maskName(images[i])))
                counter.step()
            } catch {
                failure.set(error)
            }
        }
        try failure.rethrow()
        return shares.values.map { $0 ?? 0 }
    }
}
