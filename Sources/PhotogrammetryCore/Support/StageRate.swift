/// The time a stage still needs, from the rate it has kept since its first progress report.
///
/// The first report is the reference (the time a stage started is not known to a progress sink,
/// and its first unit may include set-up), so the estimate exists from the second report on that
/// moved forward. A report with another total or fewer units done starts the stage over: the
/// matching stage counts again for the second pass.
struct StageRate {
    /// When the reference report came (seconds, monotonic) and what it said.
    private(set) var startSeconds: Double
    private(set) var startDone: Int
    private(set) var total: Int
    private(set) var lastDone: Int

    package init(done: Int, total: Int, now: Double) {
        (startSeconds, startDone, self.total, lastDone) = (now, done, total, done)
    }

    /// Takes the report `done` of `total` at `now`; returns the seconds left, nil while no rate
    /// is measurable yet (no unit done since the reference, or no time elapsed).
    mutating func observe(done: Int, total: Int, now: Double) -> Double? {
        if total != self.total || done < lastDone {
            self = StageRate(done: done, total: total, now: now)
            return done >= total ? 0 : nil
        }
        lastDone = done
        if done >= total { return 0 }
        let elapsed = now - startSeconds
        let units = done - startDone
        guard units > 0, elapsed > 0 else { return nil }
        return elapsed / Double(units) * Double(total - done)
    }
}
