import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The frames of a video that become the capture's images, chosen by motion and sharpness.
///
/// How far the picture has moved since the last keyframe (the sum of the frames' measured motion,
/// ``VideoFile/FrameMeasure/motion``) decides when the next one is due: every `step` of motion, a
/// fraction of the frame's longer side, so a slow stretch of the video gives few keyframes and a
/// fast one many. The step is the one that gives the ``Options/target`` count, within
/// ``Options/minimumStep`` (a camera at rest gives no new views) and ``Options/maximumStep`` (the
/// least overlap SfM needs: a long video gets more keyframes than the target rather than gaps). Where one is due, the sharpest frame within a window around that
/// point is taken, and a blurred frame (sharpness below ``Options/blurRatio`` of the local median)
/// never is: the next sharp frame after the window is taken instead.
public struct KeyframeSelection: Sendable, Equatable {
    public struct Options: Sendable, Equatable {
        /// Keyframes wanted over the whole video (`--keyframes`). Default 100: enough overlap for
        /// SfM around an orbit (3.6° apart), few enough to match every pair.
        public var target = 100
        /// The least motion between keyframes, a fraction of the longer side. Default 0.002:
        /// 0.64 px where points are tracked (320 px), a few times what Lucas-Kanade resolves. A
        /// small object on a plain backdrop moves little: templeRing's views, 7.5° apart, move its
        /// points 0.003 to 0.016.
        public var minimumStep = 0.002
        /// The most motion between keyframes, a fraction of the longer side. Default 0.15: the
        /// pictures of consecutive keyframes overlap by about 85 %.
        public var maximumStep = 0.15
        /// A frame is blurred when its sharpness is below this fraction of the median over
        /// ``blurWindowSeconds`` around it. Default 0.5.
        public var blurRatio = 0.5
        /// Seconds of video the local median sharpness is taken over (at least 11 frames). Default 2.
        public var blurWindowSeconds = 2.0
        /// The window a keyframe is chosen in: frames whose motion since the last keyframe is
        /// within this fraction of the step around it (after it: at least ``minimumStep``). Default 0.25.
        public var window = 0.25

        public init() {}

        public var keyText: String {
            "target=\(target) step=\(minimumStep)...\(maximumStep) blur=\(blurRatio)/\(blurWindowSeconds)s window=\(window)"
        }

        public func validate() throws {
            guard target >= 3 else { throw PipelineError.invalidOption("--keyframes \(target): at least 3") }
            guard minimumStep > 0, maximumStep >= minimumStep, blurRatio >= 0, blurRatio < 1, blurWindowSeconds > 0,
                  window >= 0, window < 1 else {
                throw PipelineError.invalidOption("keyframe selection options out of range: \(keyText)")
            }
        }
    }

    /// One chosen frame.
    public struct Keyframe: Sendable, Equatable {
        /// Index of the frame in decoding order, from 0.
        public var frame: Int
        /// Why this frame: what made a keyframe due and why this frame of the window.
        public var reason: String
    }

    public var keyframes: [Keyframe]
    /// Frames whose sharpness is below ``Options/blurRatio`` of the local median, ascending.
    public var blurredFrames: [Int]
    /// Motion between keyframes this video was given, a fraction of the longer side.
    public var step: Double
    /// The picture's whole motion over the video, a fraction of the longer side.
    public var totalMotion: Double

    /// Chooses the keyframes of a video from its frames' measures, in decoding order.
    ///
    /// The step is the largest within the bounds that still gives the target count (bisected:
    /// the count falls as the step grows), so a video whose motion comes in jumps, like one that
    /// stops at each view, gives each view before the step outgrows the jumps.
    public static func select(_ measures: [VideoFile.FrameMeasure], fps: Double, options: Options) -> KeyframeSelection {
        guard !measures.isEmpty else { return KeyframeSelection(keyframes: [], blurredFrames: [], step: 0, totalMotion: 0) }
        // Where tracking was lost the motion is unknown: taken as the most a step may be, so a
        // keyframe is due on each side of a cut.
        var travelled = [Double](repeating: 0, count: measures.count)
        for i in 1..<measures.count {
            travelled[i] = travelled[i - 1] + (measures[i].lost ? options.maximumStep : measures[i].motion)
        }
        let blurred = blurredFlags(measures, fps: fps, options: options)
        let sharpness = measures.map(\.sharpness)
        let choose = { (step: Double) -> [Keyframe] in Self.choose(step: step, travelled, sharpness, blurred, options) }
        var low = options.minimumStep, high = options.maximumStep
        var keyframes = choose(low)
        if keyframes.count > options.target {
            let widest = choose(high)
            if widest.count >= options.target {
                low = high
                keyframes = widest
            } else {
                // Invariant: choose(low) gives at least the target, choose(high) fewer.
                for _ in 0..<40 where high - low > 1e-6 * high {
                    let middle = (low + high) / 2
                    let chosen = choose(middle)
                    if chosen.count >= options.target { low = middle; keyframes = chosen } else { high = middle }
                }
            }
        }
        return KeyframeSelection(keyframes: keyframes, blurredFrames: indices(blurred), step: low,
                                 totalMotion: travelled.last! - travelled[0])
    }

    /// The keyframes for one step: the first, one wherever the motion since the last reaches
    /// `step`, and the end of the video when it moved half a step past the last.
    package static func choose(step: Double, _ travelled: [Double], _ sharpness: [Double], _ blurred: [Bool],
                       _ options: Options) -> [Keyframe] {
        let count = travelled.count
        var keyframes: [Keyframe] = []
        // The first keyframe: the sharpest frame before the picture has moved a window's worth.
        var end = 0
        while end + 1 < count, travelled[end + 1] - travelled[0] <= options.window * step { end += 1 }
        guard var last = sharpest(0...end, sharpness, blurred) ?? firstSharp(after: end, blurred) else { return [] }
        keyframes.append(Keyframe(frame: last, reason: last <= end
            ? "start: sharpest of frames \(range(0, end))" : "start: first sharp frame after blurred frames \(range(0, end))"))
        while true {
            let moved = { (j: Int) in travelled[j] - travelled[last] }
            // Due where the motion since the last keyframe reaches the step.
            guard let due = (last + 1..<count).first(where: { moved($0) >= step }) else { break }
            var low = due
            while low - 1 > last, moved(low - 1) >= (1 - options.window) * step { low -= 1 }
            // Frames after `due` within the window's motion of it or of the step, and at least
            // within the least step (all of a held shot, whose measured motion is coding noise).
            let ceiling = max(moved(due), step) + max(options.window * step, options.minimumStep)
            var high = due
            while high + 1 < count, moved(high + 1) <= ceiling { high += 1 }
            let why = String(format: "motion %.3f since frame %d (step %.3f)", moved(due), last, step)
            if let chosen = sharpest(low...high, sharpness, blurred) {
                keyframes.append(Keyframe(frame: chosen, reason: "\(why): sharpest of frames \(range(low, high))"))
                last = chosen
            } else if let chosen = firstSharp(after: high, blurred) {
                keyframes.append(Keyframe(frame: chosen, reason: "\(why): first sharp frame after blurred frames \(range(low, high))"))
                last = chosen
            } else {
                break
            }
        }
        // The end of the video, when it moved half a step or more past the last keyframe.
        let tail = travelled[count - 1] - travelled[last]
        if tail >= 0.5 * step {
            var low = count - 1
            while low - 1 > last, travelled[count - 1] - travelled[low - 1] <= options.window * step { low -= 1 }
            if let chosen = sharpest(low...(count - 1), sharpness, blurred) {
                keyframes.append(Keyframe(frame: chosen, reason: String(
                    format: "end: motion %.3f since frame %d; sharpest of frames %@", tail, last, range(low, count - 1))))
            }
        }
        return keyframes
    }

    /// Whether each frame's sharpness is below ``Options/blurRatio`` of the median around it.
    static func blurredFlags(_ measures: [VideoFile.FrameMeasure], fps: Double, options: Options) -> [Bool] {
        let half = max(5, Int((options.blurWindowSeconds * (fps > 0 ? fps : 30) / 2).rounded()))
        let sharpness = measures.map(\.sharpness)
        return sharpness.indices.map { i in
            let window = Array(sharpness[max(0, i - half)...min(sharpness.count - 1, i + half)])
            return sharpness[i] < options.blurRatio * (window.median() ?? 0)
        }
    }

    /// The sharpest frame of `frames` that is not blurred; nil when all are.
    private static func sharpest(_ frames: ClosedRange<Int>, _ sharpness: [Double], _ blurred: [Bool]) -> Int? {
        frames.filter { !blurred[$0] }.max { sharpness[$0] < sharpness[$1] }
    }

    private static func firstSharp(after frame: Int, _ blurred: [Bool]) -> Int? {
        (frame + 1..<blurred.count).first { !blurred[$0] }
    }

    private static func indices(_ flags: [Bool]) -> [Int] { flags.indices.filter { flags[$0] } }

    private static func range(_ low: Int, _ high: Int) -> String { low == high ? "\(low)" : "\(low)-\(high)" }
}
