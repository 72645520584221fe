import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Finer features where a model left images out: SIFT one octave further down (the working
/// image upsampled by 2) for those images and the images they match best, appended to the
/// features they have, and their pairs matched again.
///
/// SIFT at OpenCV's finest octave sees little of a small frame: a 640 x 360 video frame holds
/// about 1,000 features, and where the view changes fast (pavilion-outer, frames 34-38: a tree
/// passing close in front of the camera) its neighbours share 5-20 verified matches, too few to
/// link it. The octave below holds ten times the keypoints and, on those frames, 2-5 times the
/// matches that agree with the reference poses (44-167 essential-matrix inliers a pair). It
/// costs ten times the matching, so it is spent only on the images a model leaves out and on
/// the images they must link to, whose finer keypoints carry the tracks.
public struct FinerFeatures: Sendable, Equatable {
    /// Whether the pass runs when the largest model leaves images out. Default true.
    public var enabled = true
    /// Per image left out, how many of its partners get finer features too: the frames nearest
    /// in a sequence, else the images it shares the most verified matches with. Default 4 (a
    /// frame links through its two neighbours on either side).
    public var partners = 4
    /// The finer octave's contrast threshold, as a fraction of the one each image's features
    /// were detected at. Default 0.5.
    public var contrastFactor = 0.5
    /// At most this many images get finer features; a capture that leaves out more is failing for
    /// another reason than the scale of its features. Default 40.
    public var maxImages = 40

    public init() {}

    /// The SIFT options of the finer octave for an image whose features `base` are.
    public func siftOptions(_ options: SIFTOptions, base: FeatureSet) -> SIFTOptions {
        siftOptions(options, baseThreshold: base.contrastThreshold)
    }

    /// The SIFT options of the finer octave for an image detected at `baseThreshold`: that
    /// threshold times ``contrastFactor``, never below the options' floor.
    public func siftOptions(_ options: SIFTOptions, baseThreshold: Double) -> SIFTOptions {
        var finer = options
        finer.contrastThreshold = max(options.minContrastThreshold, contrastFactor * baseThreshold)
        return finer
    }

    /// Throws when a count is out of range.
    public func validate() throws {
        guard partners >= 0, maxImages >= 0 else {
            throw PipelineError.invalidOption("finer features: partners and the image cap must be >= 0")
        }
        guard contrastFactor > 0, contrastFactor <= 1 else {
            throw PipelineError.invalidOption("finer features: the contrast factor must be in (0, 1]")
        }
    }

    /// The images to give finer features, ascending: those left out and their partners; empty
    /// when none is left out or more than ``maxImages`` would be chosen.
    /// - Parameters:
    ///   - leftOut: image indices the largest model does not hold.
    ///   - graph: the verified pairs.
    ///   - isSequence: whether the images are a sequence (partners are then the nearest frames).
    public func images(leftOut: [Int], graph: MatchGraph, isSequence: Bool) -> [Int] {
        guard enabled, !leftOut.isEmpty else { return [] }
        var inliers = [Int: [Int: Int]]()
        for edge in graph.edges {
            inliers[edge.first, default: [:]][edge.second] = edge.matches.count
            inliers[edge.second, default: [:]][edge.first] = edge.matches.count
        }
        var chosen = Set(leftOut)
        for i in leftOut {
            if isSequence {
                // The nearest frames on either side, alternating: i-1, i+1, i-2, i+2, ...
                var nearest: [Int] = []
                for step in 1...max(1, partners) { nearest += [i - step, i + step] }
                chosen.formUnion(nearest.filter { $0 >= 0 && $0 < graph.numImages }.prefix(partners))
            } else {
                let ranked = (inliers[i] ?? [:]).sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
                chosen.formUnion(ranked.prefix(partners).map(\.key))
            }
        }
        guard chosen.count <= maxImages else { return [] }
        return chosen.sorted()
    }
}
