import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Stage 2: SIFT features of every image, in parallel, with per-image failures kept apart.
public enum FeatureExtraction {
    /// The outcome for the capture: features per image (nil where extraction failed) and why.
    public struct Result {
        public var features: [FeatureSet?]
        public var failures: [(index: Int, reason: String)]
        /// Images whose features came from the checkpoint of an earlier run.
        public var resumedCount = 0

        /// Images whose alpha channel masked them.
        public var alphaMaskedCount: Int { features.compactMap { $0 }.filter(\.maskFromAlpha).count }

        /// Where the masks came from, for the report: the given or discovered source, the images'
        /// alpha channels, or both (combined with AND); nil without masks.
        public func maskSummary(_ source: MaskSource?) -> String? {
            MaskSource.describe(source, alphaImages: alphaMaskedCount)
        }
    }

    /// Extracts features for each image of the capture.
    /// - Parameters:
    ///   - masks: where masks come from, if anywhere: a rectangle or one file per image.
    ///   - cacheDirectory: where features are checkpointed; a rerun loads them instead.
    public static func run(capture: Capture, masks: MaskSource?, options: SIFTOptions, threads: Int,
                           cacheDirectory: URL?, progress: ProgressSink?) throws -> Result {
        let n = capture.images.count
        let slots = ResultSlots<Swift.Result<FeatureSet, CVisionError>>(count: n)
        let counter = ProgressCounter(stage: "features", total: n, sink: progress)
        let resumed = ResultSlots<Bool>(count: n)
        parallelFor(n, threads: threads) { i in
            let image = capture.images[i]
            let maskURL = masks?.maskURL(for: image)
            let cache = cacheDirectory?.appendingPathComponent(cacheName(image, mask: maskURL))
            if let cache, FileManager.default.fileExists(atPath: cache.path),
               let cached = try? FeatureSet.load(from: cache) {
                slots[i] = .success(cached)
                resumed[i] = true
            } else {
                do {
                    let features = try FeatureSet.extract(imageURL: image.url, maskURL: maskURL, keepRect: masks?.keepRect,
                                                          options: options)
                    if let cache { try? features.save(to: cache) }
                    slots[i] = .success(features)
                } catch let error as CVisionError {
                    slots[i] = .failure(error)
                } catch {
                    slots[i] = .failure(CVisionError(code: .internalError, message: "\(error)"))
                }
            }
            counter.step()
        }
        try counter.checkCancelled()
        var features: [FeatureSet?] = []
        var failures: [(Int, String)] = []
        for (i, slot) in slots.values.enumerated() {
            switch slot {
            case .success(let set)?: features.append(set)
            case .failure(let error)? where error.isResourceExhaustion:
                throw error
            case .failure(let error)?:
                features.append(nil)
                failures.append((i, error.message))
            case nil:
                features.append(nil)
                failures.append((i, "not processed"))
            }
        }
        var result = Result(features: features, failures: failures)
        result.resumedCount = resumed.values.compactMap { $0 }.count
        if result.resumedCount > 0, let cacheDirectory {
            progress?.event(.featuresResumed, "features: \(result.resumedCount) of \(n) images from the checkpoint in "
                            + cacheDirectory.path)
        }
        if result.alphaMaskedCount > 0 {
            progress?.event(.alphaMasks, "masks: alpha channel of \(result.alphaMaskedCount) image\(result.alphaMaskedCount == 1 ? "" : "s")")
        }
        if let note = adaptationNote(features.compactMap { $0 }, options: options) { progress?.event(.contrastLowered, note) }
        return result
    }

    /// One line on the frames whose contrast threshold was lowered, nil when none was.
    static func adaptationNote(_ sets: [FeatureSet], options: SIFTOptions) -> String? {
        let lowered = sets.filter { $0.contrastThreshold < options.contrastThreshold }
        guard !lowered.isEmpty, let median = lowered.map(\.contrastThreshold).median() else { return nil }
        return String(format: "features: %d of %d images had fewer than %d at contrast %g; threshold lowered (median %g)",
                      lowered.count, sets.count, options.minFeatures, options.contrastThreshold, median)
    }

    /// A flat cache file name for an image, from its name (which may hold folders), and the
    /// contents of it and its mask (``ContentDigest``), so that a changed image or mask is never
    /// served stale features while a copy or a re-extracted zip (new modification times) is.
    package static func cacheName(_ image: CaptureImage, mask: URL?) -> String {
        let maskStamp = mask.map { "-m" + ContentDigest.file($0) } ?? ""
        return image.name.replacingOccurrences(of: "/", with: "__") + "-" + ContentDigest.file(image.url) + maskStamp + ".sift"
    }
}
