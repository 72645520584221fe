import Foundation

/// The pose check as `report.json` holds it (`pose_check`): whether the model's poses pass the
/// checks that need no ground truth, each check with its figure and threshold, and the frames
/// that fail.
public struct PoseCheckSummary: Codable, Sendable, Equatable {
    /// One check: what it measured against what it allows.
    public struct Check: Codable, Sendable, Equatable {
        /// "inliers", "inlier_spread", "rotation_agreement", "loop_closure", "turn_axis",
        /// "turn_rate" or "turn_closure".
        public var name: String
        /// Whether the check passed (true also when it did not apply: see ``applies``).
        public var passed: Bool
        /// Whether the capture gave the check anything to judge (a turntable check on an orbit,
        /// loop closures without pairs across a long gap: false).
        public var applies: Bool
        /// The figure judged: the worst frame's or pair's value, or the capture's (see ``unit``).
        public var figure: Double?
        /// The limit the figure is judged against.
        public var threshold: Double?
        /// What ``figure`` and ``threshold`` count, e.g. "deg", "observations", "share of cells".
        public var unit: String
        /// The frames that fail it, by name.
        public var failingFrames: [String]
        /// One sentence with the evidence.
        public var evidence: String

        public init(name: String, passed: Bool, applies: Bool = true, figure: Double? = nil, threshold: Double? = nil,
                    unit: String, failingFrames: [String] = [], evidence: String) {
            self.name = name
            self.passed = passed
            self.applies = applies
            self.figure = figure
            self.threshold = threshold
            self.unit = unit
            self.failingFrames = failingFrames
            self.evidence = evidence
        }

        package enum CodingKeys: String, CodingKey {
            case name, passed, applies, figure, threshold, unit, failingFrames = "failing_frames", evidence
        }
    }

    /// Whether every check passed: false means "poses unreliable".
    public var passed: Bool
    /// The checks, in the order they ran.
    public var checks: [Check]
    /// Every frame some check fails, by name, sorted.
    public var failingFrames: [String]
    /// What failed, one sentence with its figure (the first failing check's evidence); nil when passed.
    public var reason: String?
    /// What to do about it; nil when passed.
    public var fix: String?

    public init(passed: Bool, checks: [Check], failingFrames: [String], reason: String? = nil, fix: String? = nil) {
        self.passed = passed
        self.checks = checks
        self.failingFrames = failingFrames
        self.reason = reason
        self.fix = fix
    }

    package enum CodingKeys: String, CodingKey {
        case passed, checks, failingFrames = "failing_frames", reason, fix
    }
}
