import Foundation

/// The stages a run expects to run, in order, each with its typical share of the run's time:
/// what a progress sink turns into "[4/10]" and into the whole run's ETA.
///
/// The pipeline sends it as each stage starts (``ProgressSink/plan(_:)``): the stages that ran,
/// the one starting, and the later ones the run's options and what the run found so far leave in
/// (a pass that runs only when images are left out joins the plan when they are).
public struct RunPlan: Sendable, Equatable {
    /// The stages' names, in order.
    public var stages: [String]
    /// Each stage's typical share of the run's time, in any positive unit (only ratios count).
    public var shares: [Double]
    /// The running stage's position in ``stages``, from 0.
    public var current: Int

    public init(stages: [String], shares: [Double], current: Int) {
        precondition(stages.count == shares.count && stages.indices.contains(current), "a plan names its running stage")
        self.stages = stages
        self.shares = shares
        self.current = current
    }

    /// The running stage's number, from 1: the 4 of "[4/10]".
    public var index: Int { current + 1 }
    /// The stages in the plan: the 10 of "[4/10]".
    public var count: Int { stages.count }

    /// The fraction of the run's work done once the running stage has done `stageFraction` (0-1)
    /// of its own: the shares of the stages before it and that part of its own, over all shares.
    /// Stages in `resumed` (loaded from an earlier run's checkpoints) cost nothing and are left
    /// out of both. Nil when nothing is left to weigh.
    public func fractionDone(stageFraction: Double, resumed: Set<String> = []) -> Double? {
        var done = 0.0, total = 0.0
        for (position, (stage, share)) in zip(stages, shares).enumerated() where !resumed.contains(stage) {
            total += share
            if position < current { done += share }
            if position == current { done += share * min(max(stageFraction, 0), 1) }
        }
        return total > 0 ? done / total : nil
    }

    /// Below this fraction of the work done the whole run's ETA is not given: one stage's first
    /// second says too little about the rest.
    public static let minimumFractionForETA = 0.01
    /// Nor before this many seconds.
    public static let minimumSecondsForETA = 2.0

    /// The seconds the run still needs at the rate it has kept so far: `elapsed` over the
    /// fraction of the work done, times the fraction left. Nil until measurable (see
    /// ``minimumFractionForETA`` and ``minimumSecondsForETA``).
    public static func remainingSeconds(elapsed: Double, fractionDone: Double?) -> Double? {
        guard let fraction = fractionDone, fraction >= minimumFractionForETA, elapsed >= minimumSecondsForETA else {
            return nil
        }
        return fraction >= 1 ? 0 : elapsed / fraction * (1 - fraction)
    }
}
