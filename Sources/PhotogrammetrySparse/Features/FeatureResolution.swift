import PhotogrammetryCore
import PhotogrammetryBridge

/// How large the images are when SIFT sees them: a capture of few views is detected at the
/// resolution it has, a large one at SIFT's working size.
///
/// With few views every pose rests on the keypoints of a handful of images and nothing averages
/// their localisation error away, so each keypoint should be as precise as the pixels allow
/// (a small gain, at several times the detection time: docs/benchmarks.md). Detection
/// costs about 0.5 s per megapixel on one core (OpenCV's SIFT doubles its input), so the budget
/// caps that extra work at about half a minute, while a capture of many views, whose poses many
/// overlapping images hold, keeps the working size and its speed.
public struct FeatureResolution: Sendable, Equatable {
    /// Captures whose usable images hold at most this many megapixels in total are detected at
    /// full resolution. Default 64 (ten 6 MP phone photos; 0 turns it off).
    public var fullResolutionBudgetMegapixels = 64.0

    public init() {}

    /// Throws when the budget is negative or not finite.
    public func validate() throws {
        guard fullResolutionBudgetMegapixels >= 0, fullResolutionBudgetMegapixels.isFinite else {
            throw PipelineError.invalidOption("feature resolution: the full-resolution budget must be >= 0")
        }
    }

    /// The SIFT options to use for `capture`: `options` with its size limit raised to the
    /// longest image side when the whole capture fits the budget.
    public func siftOptions(for capture: Capture, _ options: SIFTOptions) -> SIFTOptions {
        let megapixels = capture.images.reduce(0.0) { $0 + Double($1.width) * Double($1.height) / 1e6 }
        let longest = capture.images.map { max($0.width, $0.height) }.max() ?? 0
        guard megapixels <= fullResolutionBudgetMegapixels, longest > options.maxImageSize else { return options }
        var full = options
        full.maxImageSize = longest
        return full
    }
}
