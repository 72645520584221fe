import Foundation
import PhotogrammetryCore

/// The checks a model's poses must pass before the diagnosis speaks, none needing ground truth.
///
/// A model can register every frame and still be wrong: a textureless object before a textured
/// backdrop gave 48 of 48 frames at AUC@5 13, and the diagnosis then measured the wrong poses'
/// coverage and advised turning the object through "the rest of the circle". The poses are
/// checked against what the capture itself says:
/// - every registered image keeps enough observations of points seen elsewhere, spread over the
///   part of the frame where it has features (``PoseCheck+Images.swift``);
/// - each image's rotations to its neighbours agree with the pairs' own two-view rotations, and
///   pairs matched across a long gap in capture order (loop closures) agree with the model's
///   relative pose (``PoseCheck+Pairs.swift``);
/// - the frames are one part: they do not fall into large groups that share no matches (two
///   subjects in one capture; ``PoseCheck+Parts.swift``);
/// - the model explains most verified matches of every pair of consecutive frames: where it
///   explains few, part of the scene moved another way (an object slipping on its plate;
///   ``PoseCheck+Motions.swift``);
/// - on a turntable, the turn steps between consecutive frames share one axis at a near-constant
///   rate and the turn closes (``PoseCheck+Turntable.swift``).
///
/// A model failing any of them is "poses unreliable" (``CaptureVerdict/Level/unreliable``), with
/// the evidence and the fix; each registered image gets a confidence in 0-1.
public struct PoseCheck: Sendable {
    /// A pair's relative pose as two-view geometry measured it from its verified matches.
    public struct MeasuredPair: Sendable, Equatable {
        public var first: ImageID
        public var second: ImageID
        /// Rotation of `second`'s camera from `first`'s (cam2_from_cam1).
        public var secondFromFirst: Matrix3
        /// Direction of the translation of cam2_from_cam1 (unit).
        public var direction: SIMD3<Double>
        /// Verified matches of the pair.
        public var matches: Int
        /// A second measurement of the rotation (from the pair's fundamental matrix), if any:
        /// the pair contradicts the model only when neither agrees.
        public var alternative: Matrix3?

        public init(first: ImageID, second: ImageID, secondFromFirst: Matrix3, direction: SIMD3<Double>, matches: Int,
                    alternative: Matrix3? = nil) {
            self.first = first
            self.second = second
            self.secondFromFirst = secondFromFirst
            self.direction = direction
            self.matches = matches
            self.alternative = alternative
        }
    }

    /// What the check reads besides the model.
    public struct Input: Sendable {
        /// Every usable image in capture order (by name), registered or not: the turn steps and
        /// loop gaps count frames of this list.
        public var order: [String]
        /// The pairs' measured relative poses (``PoseCheck/measuredPairs(_:model:imageIDs:)``).
        public var pairs: [MeasuredPair]
        /// A fixed camera took the capture (a turntable).
        public var turntable: Bool
        /// The frames were taken in the order of their names (consecutive frames match): loop
        /// closures and turn steps mean something.
        public var ordered: Bool
        /// Every verified pair of the match graph (``PoseCheck/links(_:names:)``): the parts the
        /// capture falls into.
        public var links: [Link]
        /// How many of each verified pair's matches the model explains
        /// (``PoseCheck/pairSupport(_:model:imageIDs:)``).
        public var support: [PairSupport]

        public init(order: [String], pairs: [MeasuredPair], turntable: Bool, ordered: Bool, links: [Link] = [],
                    support: [PairSupport] = []) {
            self.order = order
            self.pairs = pairs
            self.turntable = turntable
            self.ordered = ordered
            self.links = links
            self.support = support
        }
    }

    /// The report's `pose_check` and each registered image's confidence.
    public struct Result: Sendable {
        public var summary: PoseCheckSummary
        /// Confidence 0-1 and the reasons it is below 1, by image name.
        public var confidence: [String: (value: Double, reasons: [String])]
    }

    /// One check's outcome: the summary entry and each frame's score (1 well within the
    /// threshold, 0.5 at it, 0 far beyond) with its reason.
    struct Outcome {
        var check: PoseCheckSummary.Check
        var scores: [String: (score: Double, reason: String)] = [:]
        /// What to do when it fails.
        var fix: String
    }

    /// Checks `model` (its registered images) against `input`.
    public static func run(_ model: Reconstruction, _ input: Input) -> Result {
        let registered = model.images.values.filter(\.isRegistered)
        // The parts first: a capture of two subjects has no single model, whatever else holds.
        var outcomes = [partsCheck(model, input)]
        outcomes += imageChecks(model, registered: registered)
        outcomes += pairChecks(model, input)
        outcomes.append(motionCheck(model, input))
        if input.turntable { outcomes += turntableChecks(model, input) }
        deferLoopsToTheTurn(&outcomes)
        var confidence: [String: (value: Double, reasons: [String])] = [:]
        for image in registered { confidence[image.name] = (1, []) }
        for outcome in outcomes {
            for (name, entry) in outcome.scores where confidence[name] != nil {
                let current = confidence[name]!
                let reasons = entry.score < 1 ? current.reasons + [entry.reason] : current.reasons
                // Below one half only where a check failed: a check that judges a share (of
                // steps, of loop pairs) passes with a few frames off, and those are doubtful,
                // not wrong.
                let score = outcome.check.passed ? max(0.5, entry.score) : entry.score
                confidence[name] = (min(current.value, (score * 100).rounded() / 100), reasons)
            }
        }
        let failing = outcomes.filter { !$0.check.passed }
        let frames = Set(failing.flatMap(\.check.failingFrames)).sorted()
        let summary = PoseCheckSummary(passed: failing.isEmpty, checks: outcomes.map(\.check), failingFrames: frames,
                                       reason: failing.first?.check.evidence,
                                       fix: failing.isEmpty ? nil : failing.map(\.fix).uniqued().joined(separator: " "))
        return Result(summary: summary, confidence: confidence)
    }

    /// On a whole turn the turn's closure is the loop check, and single pairs across the turn do
    /// not judge it: frames half a turn apart share little but the plate, whose repeated pattern
    /// matches itself turned (synthetic-turntable, a right model at AUC@5 99: 19 of 23 such pairs
    /// miss it by about 60°, while its steps share one axis and sum to one turn).
    static func deferLoopsToTheTurn(_ outcomes: inout [Outcome]) {
        guard outcomes.contains(where: { $0.check.name == "turn_closure" && $0.check.applies }),
              let loop = outcomes.firstIndex(where: { $0.check.name == "loop_closure" && $0.check.applies }) else { return }
        outcomes[loop].check.applies = false
        outcomes[loop].check.passed = true
        outcomes[loop].check.failingFrames = []
        outcomes[loop].check.evidence = "a whole turn: its closure is judged by turn_closure ("
            + outcomes[loop].check.evidence + ")"
        outcomes[loop].scores = [:]
    }

    /// A frame's score for an error `value` against `threshold` (both positive): 1 up to half the
    /// threshold, 0.5 at it, 0 at twice it.
    static func errorScore(_ value: Double, threshold: Double) -> Double {
        guard threshold > 0 else { return 1 }
        let r = value / threshold
        if r <= 0.5 { return 1 }
        if r <= 1 { return 1 - (r - 0.5) }
        return max(0, 0.5 - 0.5 * (r - 1))
    }

    /// A frame's score for a count or share `value` that must reach `minimum`: 1 from twice the
    /// minimum, 0.5 at it, 0 at half of it.
    static func amountScore(_ value: Double, minimum: Double) -> Double {
        guard minimum > 0 else { return 1 }
        let r = value / minimum
        if r >= 2 { return 1 }
        if r >= 1 { return 0.5 + 0.5 * (r - 1) }
        return max(0, r - 0.5)
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
