import Foundation
import PhotogrammetryCore

extension PoseCheck {
    /// Largest angle, degrees, between a turn step's axis and the turn's axis: 20. A step's
    /// rotation carries the pose's noise (about 1° on our turntables), which turns the axis of a
    /// step of θ by about 1°/θ radians: 8° for the 7.5° steps of a 48-frame turn, 15° at 4°.
    /// Steps below ``minAxisStepDeg`` have no axis to speak of and are not judged.
    public static let maxAxisDeviationDeg = 20.0
    /// Smallest step, degrees, whose axis is judged: 2.
    static let minAxisStepDeg = 2.0
    /// Share of the steps allowed off the axis: 0.1 (a frame or two of a turn may be noisy).
    public static let maxOffAxisShare = 0.1

    /// Largest departure of a turn step from the turn's median step, as a share of the median:
    /// 0.5, plus ``rateNoiseDeg``. A turntable (a motor, or a plate turned by a mark) turns by
    /// equal steps; a step half as large again is a slip, a jump in the file order or a frame the
    /// model put in the wrong place. A step over frames that did not register counts per frame.
    public static let maxRateDeviation = 0.5
    /// Noise of a step's angle, degrees, allowed on top of ``maxRateDeviation``: 1.
    static let rateNoiseDeg = 1.0
    /// The range of plausible median steps, degrees: from 0.5 (the object barely turns: 720
    /// frames a turn) to 45 (pairs further apart than 8 frames a turn do not match).
    public static let plausibleStepDeg = 0.5...45.0
    /// Share of the steps allowed off the rate: 0.2. Files renumbered in stretches
    /// (turntable-temple: 7 of its 46 steps jump between stretches) step unevenly in name order
    /// while the model is right; a model that puts frames in the wrong places steps unevenly
    /// throughout, and a slip shows in the turn's closure.
    public static let maxUnevenShare = 0.2
    /// Share of consecutive files (by name) allowed not to be neighbours on the turn: 0.5. A
    /// capture whose files were renumbered in stretches (turntable-temple: 6 jumps in 46 steps)
    /// is still mostly in order; past half, the file order is not the order the frames were
    /// taken. The turn is then walked in its own order (the frames sorted by their angle), since
    /// steps between files half a turn apart say nothing of the poses; what reads the capture as
    /// a sequence (sequential matching, a motion prior) may have read it wrongly, and that shows
    /// there as uneven steps or steps off the axis. A model that steps evenly about one axis in
    /// its own order is right whatever the files' names (broken-shuffled's masked model: AUC@5
    /// 97.4), and the files' order is then reported, not held against the poses.
    public static let maxOutOfOrderShare = 0.5

    /// A registered frame of the turn: its place in the capture order and its angle about the
    /// turn's axis from the first frame, degrees in [0, 360).
    struct TurnFrame {
        var index: Int
        var name: String
        var rotation: Matrix3
        var angleDeg: Double
    }

    /// The dominant axis of `vectors` (the principal direction of their scatter), pointing the
    /// way most of them turn.
    static func turnAxis(_ vectors: [SIMD3<Double>]) -> SIMD3<Double>? {
        guard let start = vectors.max(by: { length($0) < length($1) }), length(start) > 0 else { return nil }
        var axis = normalize(start)
        for _ in 0..<50 {
            var next = SIMD3<Double>.zero
            for v in vectors { next += dot(v, axis) * v }
            guard length(next) > 0 else { break }
            axis = normalize(next)
        }
        return vectors.reduce(0) { $0 + dot($1, axis) } < 0 ? -axis : axis
    }

    /// The rotation vector, world frame, degrees, that turns camera `a` into camera `b`:
    /// cam_b from world = cam_a from world · step, so step = R_aᵀ R_b (a turntable's camera
    /// orbits the object about one axis).
    static func stepVector(_ a: Matrix3, _ b: Matrix3) -> SIMD3<Double> {
        Rotation.angleAxis(a.transposed * b) * (180 / .pi)
    }

    /// The turn's axis, rate and closure over the steps between consecutive files (between
    /// neighbours on the turn when the files are out of order, ``maxOutOfOrderShare``), and the
    /// files' order against the turn's (the frames sorted by their angle about the axis).
    static func turntableChecks(_ model: Reconstruction, _ input: Input) -> [Outcome] {
        let byName = Dictionary(model.images.values.filter(\.isRegistered).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let inOrder = input.order.enumerated().compactMap { k, name in byName[name].map { (k, name, $0.camFromWorld!.rotation) } }
        let nameSteps = zip(inOrder, inOrder.dropFirst()).map { stepVector($0.2, $1.2) }
        var axisOutcome = Outcome(check: .init(name: "turn_axis", passed: true, threshold: maxOffAxisShare,
                                               unit: "share of steps", evidence: ""),
                                  fix: "The model's turn wobbles off one axis: the backdrop or the plate was taken for the "
                                    + "object. Mask the object (--mask, or a rectangle) and run again.")
        var rate = Outcome(check: .init(name: "turn_rate", passed: true, threshold: maxRateDeviation,
                                        unit: "share of the median step", evidence: ""),
                           fix: "The turn is uneven: the object slipped on the plate or the plate jumped. Fix the object "
                            + "to the plate and turn by equal steps; mask the object (--mask) if the plate misleads.")
        var order = Outcome(check: .init(name: "turn_order", passed: true, threshold: maxOutOfOrderShare,
                                         unit: "share of consecutive files", evidence: ""),
                            fix: "The files are not in the order the frames were taken: name them in capture order "
                                + "(or keep the camera's numbering) and run again.")
        var closure = Outcome(check: .init(name: "turn_closure", passed: true, unit: "deg", evidence: ""),
                              fix: "The model's turn does not close: the poses drift or fold back on themselves, or the "
                                + "object did not turn through a whole turn. Mask the object (--mask, or a rectangle) so "
                                + "the backdrop does not mislead, and turn it through a whole turn.")
        guard nameSteps.count >= 3, let axis = turnAxis(nameSteps) else {
            return [axisOutcome, rate, order, closure].map { outcome in
                var outcome = outcome
                outcome.check.applies = false
                outcome.check.evidence = "fewer than four registered frames: no turn to check"
                return outcome
            }
        }
        let first = inOrder[0].2
        let frames = inOrder.map { k, name, rotation in
            let angle = dot(stepVector(first, rotation), axis)
            return TurnFrame(index: k, name: name, rotation: rotation, angleDeg: angle < 0 ? angle + 360 : angle)
        }
        let turn = frames.sorted { ($0.angleDeg, $0.index) < ($1.angleDeg, $1.index) }
        // Order: consecutive files that are not neighbours on the turn.
        var place = [Int: Int]()
        for (p, frame) in turn.enumerated() { place[frame.index] = p }
        let jumps = zip(frames, frames.dropFirst()).filter { a, b in
            let d = abs(place[b.index]! - place[a.index]!)
            return d != 1 && d != turn.count - 1
        }
        let outOfOrder = Double(jumps.count) / Double(frames.count - 1)
        let inTurnOrder = outOfOrder > maxOutOfOrderShare
        let walk = inTurnOrder ? turn : frames
        // In the turn's order each step is one frame's; in the files' order, one per file it spans.
        let steps = zip(walk, walk.dropFirst()).map { from, to in
            (from: from, to: to, vector: stepVector(from.rotation, to.rotation), span: inTurnOrder ? 1 : Double(to.index - from.index))
        }
        // Axis.
        var offAxis: [(name: String, deg: Double)] = []
        var judged = 0
        for step in steps {
            let angle = length(step.vector)
            guard angle >= minAxisStepDeg else { continue }
            judged += 1
            let off = acos(min(1, abs(dot(step.vector, axis)) / angle)) * 180 / .pi
            axisOutcome.scores[step.to.name] = (errorScore(off, threshold: maxAxisDeviationDeg),
                                                String(format: "its turn step is %.0f° off the turn's axis (allowed %.0f°)",
                                                       off, maxAxisDeviationDeg))
            if off > maxAxisDeviationDeg { offAxis.append((step.to.name, off)) }
        }
        let offShare = judged == 0 ? 0 : Double(offAxis.count) / Double(judged)
        axisOutcome.check.figure = (offShare * 1000).rounded() / 1000
        axisOutcome.check.passed = offShare <= maxOffAxisShare
        axisOutcome.check.failingFrames = axisOutcome.check.passed ? [] : offAxis.map(\.name)
        axisOutcome.check.evidence = offAxis.isEmpty
            ? String(format: "all %d turn steps turn within %.0f° of one axis", judged, maxAxisDeviationDeg)
            : String(format: "%d of %d turn steps turn more than %.0f° off the turn's axis (worst: %.0f° into %@)",
                     offAxis.count, judged, maxAxisDeviationDeg, offAxis.map(\.deg).max()!,
                     offAxis.max { $0.deg < $1.deg }!.name)
        // Rate: each step's size about the axis per frame it spans, against the median size (the
        // turn may go either way: a capture renumbered backwards, or a plate turned back).
        let signed = steps.map { dot($0.vector, axis) / $0.span }
        let sizes = signed.map(abs)
        let median = sizes.sorted()[sizes.count / 2]
        let allowed = maxRateDeviation * median + rateNoiseDeg
        var uneven: [(from: String, to: String, size: Double)] = []
        for (step, size) in zip(steps, signed) {
            let off = abs(abs(size) - median)
            trace(String(format: "pose check: turn step %@ -> %@ %.2f°", step.from.name, step.to.name, size))
            rate.scores[step.to.name] = (errorScore(off, threshold: allowed),
                                         String(format: "its turn step is %.1f° where the turn's is %.1f°", size, median))
            if off > allowed { uneven.append((step.from.name, step.to.name, size)) }
        }
        let plausible = plausibleStepDeg.contains(median)
        let unevenShare = Double(uneven.count) / Double(steps.count)
        rate.check.figure = (unevenShare * 1000).rounded() / 1000
        rate.check.passed = plausible && unevenShare <= maxUnevenShare
        rate.check.failingFrames = rate.check.passed ? [] : uneven.map(\.to)
        let named = uneven.prefix(4).map { String(format: "%@ → %@ %.1f°", $0.from, $0.to, $0.size) }.joined(separator: ", ")
            + (uneven.count > 4 ? ", …" : "")
        rate.check.evidence = !plausible
            ? String(format: "the median turn step is %.1f° a frame, outside the plausible %.1f-%.0f°", median,
                     plausibleStepDeg.lowerBound, plausibleStepDeg.upperBound)
            : uneven.isEmpty
            ? String(format: "every turn step is within %.0f%% of the median %.1f° a frame", 100 * maxRateDeviation, median)
            : String(format: "%d of %d turn steps depart from the median %.1f° a frame by more than half of it (%@)",
                     uneven.count, steps.count, median, named)
        // Order, reported: the poses are judged by the walk along the turn.
        order.check.figure = (outOfOrder * 1000).rounded() / 1000
        order.check.passed = !inTurnOrder || (axisOutcome.check.passed && rate.check.passed)
        order.check.failingFrames = order.check.passed ? [] : jumps.map(\.1.name)
        if !order.check.passed {
            for (_, b) in jumps { order.scores[b.name] = (0.25, "its file does not follow the one before on the turn") }
        }
        let shown = jumps.prefix(4).map { "\($0.0.name) → \($0.1.name)" }.joined(separator: ", ") + (jumps.count > 4 ? ", …" : "")
        order.check.evidence = jumps.isEmpty ? "the files follow the turn in name order"
            : !inTurnOrder ? "\(jumps.count) of \(frames.count - 1) consecutive files jump on the turn (\(shown)): "
                + "the files are out of order in stretches"
            : "the files are out of order: \(jumps.count) of \(frames.count - 1) consecutive files are not neighbours on the "
                + "turn (\(shown)); walked in the turn's own order, the poses "
                + (order.check.passed ? "step evenly about one axis" : "do not step evenly about one axis either")
        // Closure: a turn of a whole turn or more adds up to whole turns, give or take the one
        // step between the last frame and the first; one short of a turn is an open arc (a
        // partial capture: the coverage advice speaks of it), judged by its loop pairs.
        let total = zip(steps, signed).reduce(0) { $0 + $1.1 * $1.0.span }
        let tolerance = median + allowed
        let turns = (abs(total) / 360).rounded()
        let miss = abs(abs(total) - 360 * turns)
        let open = abs(total) + tolerance < 360
        closure.check.applies = !open
        closure.check.figure = (miss * 10).rounded() / 10
        closure.check.threshold = (tolerance * 10).rounded() / 10
        closure.check.passed = open || miss <= tolerance
        if !closure.check.passed {
            closure.check.failingFrames = [walk.first!.name, walk.last!.name]
            for name in closure.check.failingFrames {
                closure.scores[name] = (errorScore(miss, threshold: tolerance),
                                        String(format: "the turn it ends misses a whole turn by %.0f°", miss))
            }
        }
        closure.check.evidence = open
            ? String(format: "an open arc: the turn steps add up to %.0f° over %d frames, less than a whole turn", abs(total),
                     input.order.count)
            : String(format: "the turn steps add up to %.0f° over %d frames, %.0f° from %@ (allowed: one step and its "
                     + "tolerance, %.0f°)", abs(total), input.order.count, miss,
                     "\(Int(turns)) whole turn\(turns > 1 ? "s" : "")", tolerance)
        return [axisOutcome, rate, order, closure]
    }
}
