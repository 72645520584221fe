import Foundation
import PhotogrammetryBridge
import PhotogrammetryCore

/// A fixed camera's frames of an object turning evenly on a plate, posed from point tracks alone.
///
/// A texture-poor object gives descriptor matching a few dozen faint features a frame, most of
/// them wrong, and no free pose survives that. Two assumptions a turntable makes true leave four
/// unknowns for the whole capture: the camera and the axis stay put (a rig of three numbers, one
/// focal length), and the plate turns by the same step from frame to frame (a motor, or a hand
/// that clicks through detents) in the frames' order. Thousands of short Lucas-Kanade tracks
/// inside the masks then fix those four numbers where no pair of frames could fix its own pose.
///
/// The search starts from a grid of elevations, both directions of turn, and a turn that closes
/// after the last frame or one whose step is free; the start whose adjustment leaves the least
/// robust cost per observation wins. Observations that miss by more than a threshold drop out
/// round by round, and the motion is adjusted again. The result is refused when the turn is not
/// one (two consecutive frames sharing too few tracks: a cut, another object) or when too few
/// observations fit it.
public enum EvenTurnSolver {
    public struct Options: Sendable, Equatable {
        /// The tracks followed.
        public var tracks = TurnTracks.Options()
        /// Elevations the search starts from, degrees of the camera above the plate's plane.
        /// Default 15, 40, 65: every start on the captures measured reaches the same turn.
        public var startElevations: [Double] = [15, 40, 65]
        /// Tracks each start is adjusted on (a seeded random subset). Default 800.
        public var startTracks = 800
        /// Reprojection errors, px, that observations must stay within, round after round.
        /// Default 3, 2, 1.5, 1.
        public var inlierThresholds: [Double] = [3, 2, 1.5, 1]
        /// Tracks two consecutive frames must share to be one turn. Default 10: a cut to
        /// another object leaves none.
        public var minLinkingTracks = 10
        /// Share of the last round's observations that must fit within its threshold. Default 0.8.
        public var minInlierShare = 0.8
        /// Focal lengths a turn may end at, in longer sides of the frame. Default 0.3...6 (as the
        /// mapper's estimate from fundamental matrices): beyond them noise, not a lens, fitted
        /// the tracks (a near-affine camera a hundred times too long).
        public var plausibleFocalLengths: ClosedRange<Double> = 0.3...6
        /// Seed of the start subset. Default 0.
        public var seed: UInt64 = 0

        public init() {}

        /// Option values as text, for a checkpoint key.
        public var keyText: String {
            "tracks=(\(tracks.keyText)) starts=\(startElevations) startTracks=\(startTracks) "
                + "thresholds=\(inlierThresholds) links=\(minLinkingTracks) inliers=\(minInlierShare) "
                + "focal=\(plausibleFocalLengths) seed=\(seed)"
        }
    }

    /// The turn found, its evidence, and whether it stands.
    public struct Result: Sendable {
        /// The motion, its points and the observations that fit it.
        public var motion: TurnMotion
        /// Whether the turn closes after the last frame (one whole turn) or its step is free.
        public var steps: TurnMotion.Steps
        /// Tracks followed, and their observations.
        public var trackCount: Int, observationCount: Int
        /// Share of the last round's observations within its threshold.
        public var inlierShare: Double
        /// The consecutive frames sharing the fewest fitting tracks, and how many.
        public var weakestLink: (frame: Int, tracks: Int)
        /// Why the turn does not stand; nil when it does.
        public var refusal: String?
    }

    /// Poses `images` (in capture order, one fixed camera, with their object `masks`) as one
    /// even turn, starting from `focalLength` and `principalPoint` (px).
    /// - Throws: ``CVisionError`` for a frame or mask that cannot be read.
    /// - Parameter longerSide: the frames' longer side, px: the unit of the plausible focal lengths.
    public static func solve(images: [URL], masks: [URL], focalLength: Double, principalPoint: SIMD2<Double>,
                             longerSide: Double, options: Options = Options(), threads: Int = 1) throws -> Result {
        let n = images.count
        let tracks = try TurnTracks(images: images, masks: masks, options: options.tracks, threads: threads)
        var all = TurnMotion(rig: TurnMotion.rig(elevation: 0.4), angles: (0..<n).map { 2 * .pi * Double($0) / Double(n) },
                             focalLength: focalLength, principalPoint: principalPoint,
                             points: Array(repeating: SIMD3(repeating: .nan), count: tracks.count),
                             observations: tracks.observations.map { .init(frame: $0.frame, point: $0.track, xy: $0.xy) })
        // The start: the grid's best, adjusted on a subset.
        var generator = SeededGenerator(seed: options.seed)
        var subsetTracks = Array(0..<tracks.count)
        subsetTracks.shuffle(using: &generator)
        var start = Self.subset(all, tracks: Set(subsetTracks.prefix(options.startTracks)))
        var best: (cost: Double, motion: TurnMotion, steps: TurnMotion.Steps)?
        for elevation in options.startElevations {
            for direction in [1.0, -1.0] {
                for steps in [TurnMotion.Steps.evenClosed, .even] {
                    start.rig = TurnMotion.rig(elevation: elevation * .pi / 180)
                    start.angles = (0..<n).map { direction * 2 * .pi * Double($0) / Double(n) }
                    start.focalLength = focalLength
                    var trial = start
                    try trial.triangulate()
                    let used = trial.observations.filter { trial.points[$0.point].x.isFinite }.count
                    guard used > 0, let summary = try? trial.adjust(steps, threads: threads), summary.isUsable else { continue }
                    let cost = summary.finalCost / Double(used)
                    if cost < best?.cost ?? .infinity { best = (cost, trial, steps) }
                }
            }
        }
        guard let best else {
            throw PipelineError.io("even turn: no start could be adjusted (\(tracks.count) tracks)")
        }
        all.rig = best.motion.rig
        all.angles = best.motion.angles
        all.focalLength = best.motion.focalLength
        // Rounds: adjust on what fits, drop what misses.
        var inlierShare = 0.0
        for threshold in options.inlierThresholds {
            try all.triangulate()
            _ = try all.adjust(best.steps, threads: threads)
            let errors = try all.reprojectionErrors()
            let kept = all.observations.indices.filter { errors[$0] < threshold }
            inlierShare = Double(kept.count) / Double(max(1, all.observations.count))
            all = Self.keeping(all, observations: kept)
        }
        try all.triangulate()
        _ = try all.adjust(best.steps, threads: threads)
        let link = Self.weakestLink(all, frames: n)
        var refusal: String?
        let focalRange = (options.plausibleFocalLengths.lowerBound * longerSide)...(options.plausibleFocalLengths.upperBound * longerSide)
        if !focalRange.contains(all.focalLength) {
            refusal = String(format: "the turn's focal length, %.0f px, is not a lens's for frames %.0f px long", all.focalLength, longerSide)
        } else if link.tracks < options.minLinkingTracks {
            refusal = "frames \(link.frame + 1) and \(link.frame + 2) share \(link.tracks) tracks (fewer than "
                + "\(options.minLinkingTracks)): not one turn"
        } else if inlierShare < options.minInlierShare {
            refusal = String(format: "%.0f %% of the observations fit one even turn (fewer than %.0f %%)",
                             100 * inlierShare, 100 * options.minInlierShare)
        }
        return Result(motion: all, steps: best.steps, trackCount: tracks.count, observationCount: tracks.observations.count,
                      inlierShare: inlierShare, weakestLink: link, refusal: refusal)
    }

    /// The motion with the tracks of `tracks` alone, renumbered.
    static func subset(_ motion: TurnMotion, tracks: Set<Int>) -> TurnMotion {
        keeping(motion, observations: motion.observations.indices.filter { tracks.contains(motion.observations[$0].point) })
    }

    /// The motion with the observations at `indices`, its points renumbered; points left with
    /// fewer than 2 observations go.
    static func keeping(_ motion: TurnMotion, observations indices: [Int]) -> TurnMotion {
        var counts: [Int: Int] = [:]
        for k in indices { counts[motion.observations[k].point, default: 0] += 1 }
        var renumbered: [Int: Int] = [:]
        var points: [SIMD3<Double>] = []
        var observations: [TurnMotion.Observation] = []
        for k in indices {
            var observation = motion.observations[k]
            guard counts[observation.point, default: 0] >= 2 else { continue }
            if renumbered[observation.point] == nil {
                renumbered[observation.point] = points.count
                points.append(motion.points[observation.point])
            }
            observation.point = renumbered[observation.point]!
            observations.append(observation)
        }
        var kept = motion
        kept.points = points
        kept.observations = observations
        return kept
    }

    /// The consecutive frames (i, i + 1) sharing the fewest tracks.
    static func weakestLink(_ motion: TurnMotion, frames: Int) -> (frame: Int, tracks: Int) {
        var framesOfPoint = [Set<Int>](repeating: [], count: motion.points.count)
        for observation in motion.observations { framesOfPoint[observation.point].insert(observation.frame) }
        var links = [Int](repeating: 0, count: max(0, frames - 1))
        for seen in framesOfPoint {
            for frame in seen where frame + 1 < frames && seen.contains(frame + 1) { links[frame] += 1 }
        }
        guard let weakest = links.indices.min(by: { links[$0] < links[$1] }) else { return (0, 0) }
        return (weakest, links[weakest])
    }
}
