import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of the still-background test: how a masked capture shows a fixed camera.
public struct StillBackgroundOptions: Sendable, Equatable {
    /// Whether the test runs (for masked captures that static features did not settle). Default true.
    public var enabled = true
    /// Frame pairs compared, spread over the capture. Default 8.
    public var numPairs = 8
    /// A pair testifies when textured background covers at least this share of the frame. Default 0.05.
    public var minTexturedFraction = 0.05
    /// Pairs that must testify for a verdict. Default 3.
    public var minConclusivePairs = 3
    /// The camera is fixed when the median change over testifying pairs is below this (intensity
    /// in [0, 1]). Default 0.01, between the turntables' 0.000 and the orbits' 0.027–0.125.
    public var maxChange = 0.01

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard numPairs >= 1, minConclusivePairs >= 1, minConclusivePairs <= numPairs,
              (0...1).contains(minTexturedFraction), maxChange > 0 else {
            throw PipelineError.invalidOption("still background: numPairs >= minConclusivePairs >= 1, fractions in [0, 1]")
        }
    }
}

/// Tells a fixed camera from a moving one when masks hide the background from the features.
///
/// Static-feature detection sees a turntable through background features that stand still, but
/// a mask that keeps only the object leaves none. The frames themselves still show it: outside
/// the masks a fixed camera's images are the same picture, while a moving camera's textured
/// background shifts. The C++ core compares small grey copies of frame pairs there.
public enum StillBackground {
    /// The verdict over a capture and the evidence behind it.
    public struct Result: Sendable, Equatable {
        /// Whether the background stood still in the testifying pairs.
        public var isStill: Bool
        /// The median change over testifying pairs (nil when too few testified).
        public var medianChange: Double?
        /// How many pairs had enough textured background to testify.
        public var conclusivePairs: Int
    }

    /// Tests consecutive frames spread over the capture (in its order), in parallel.
    public static func test(_ capture: Capture, masks: MaskSource, options: StillBackgroundOptions = .init(),
                            threads: Int = 2) throws -> Result {
        try options.validate()
        let images = capture.images
        guard images.count >= 2 else { return Result(isStill: false, medianChange: nil, conclusivePairs: 0) }
        let count = min(options.numPairs, images.count - 1)
        let starts = (0..<count).map { $0 * (images.count - 1) / count }
        let measured = ResultSlots<(change: Double, texturedFraction: Double)>(count: count)
        parallelFor(count, threads: threads) { n in
            let a = images[starts[n]], b = images[starts[n] + 1]
            // A pair that cannot be compared (another size, an unreadable mask) does not testify.
            measured[n] = try? BackgroundChange.measure(a.url, maskA: masks.maskURL(for: a), b.url, maskB: masks.maskURL(for: b),
                                                        keepRect: masks.keepRect)
        }
        let changes = (0..<count).compactMap { measured[$0] }.filter { $0.texturedFraction >= options.minTexturedFraction }.map(\.change)
        guard changes.count >= options.minConclusivePairs, let median = changes.median() else {
            return Result(isStill: false, medianChange: nil, conclusivePairs: changes.count)
        }
        return Result(isStill: median < options.maxChange, medianChange: median, conclusivePairs: changes.count)
    }
}
