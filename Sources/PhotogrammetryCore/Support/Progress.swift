import Foundation

/// How progress is shown: a redrawn line on a terminal, JSON lines for scripts, or nothing.
public enum ProgressMode: String, Sendable, CaseIterable {
    case tty, json, none
}

/// Receives progress from the pipeline's stages; return false from `update` to cancel.
public protocol ProgressSink: AnyObject {
    /// A stage has done `done` of `total` units of work.
    func update(stage: String, done: Int, total: Int) -> Bool
    /// A stage finished after `seconds`.
    func finished(stage: String, seconds: Double)
    /// An event for the user (a rejected image, a fallback taken, a failure) with its code.
    /// - Parameter subject: what it is about, as ``PipelineEvent/subjectKind`` says (an image
    ///   name, a stage, a capture), or nil.
    func event(_ event: PipelineEvent, _ message: String, subject: String?)
    /// A stage starts, at its place in the run's ``RunPlan``.
    func plan(_ plan: RunPlan)
    /// A stage enters (`step` named) or leaves (nil) a step that reports nothing while it works
    /// (one blocking call into the core, such as Poisson), which takes about `estimatedSeconds`
    /// (an estimate; nil when there is none).
    func step(stage: String, _ step: String?, estimatedSeconds: Double?)
}

extension ProgressSink {
    /// An event about nothing in particular.
    public func event(_ event: PipelineEvent, _ message: String) { self.event(event, message, subject: nil) }
    /// A sink that shows no stage numbers ignores the plan.
    public func plan(_ plan: RunPlan) {}
    /// A sink that sends no heartbeats ignores the steps.
    public func step(stage: String, _ step: String?, estimatedSeconds: Double?) {}
}

/// Prints progress to standard error (tty) or standard output (JSON lines).
///
/// Each line names the stage's number among the run's (``RunPlan``), the stage's ETA and the
/// whole run's. While a stage is silent (one blocking call), a heartbeat line comes every
/// ``heartbeatSeconds``. A run's last line is its closing event (``close(_:)``): finished,
/// failed or interrupted; after it the printer writes nothing and asks the stages to stop.
///
/// Its state is behind one lock: the stages' threads, the heartbeat's timer and the signal
/// queue all call it.
public final class ProgressPrinter: ProgressSink, @unchecked Sendable {
    /// A `--progress json` line reporting progress within a stage.
    struct ProgressLine: Encodable {
        package var stage: String
        package var done: Int
        package var total: Int
        package var percent: Int
        /// Seconds left at the stage's rate so far; null until measurable.
        var etaSeconds: Double?
        /// The stage's number among the run's, and how many the run expects; null outside a plan.
        var index: Int?
        var count: Int?
        /// Seconds the whole run still needs (``RunPlan/remainingSeconds(elapsed:fractionDone:)``).
        var runEtaSeconds: Double?

        package func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("progress", forKey: .event)
            try container.encode(stage, forKey: .stage)
            try container.encode(done, forKey: .done)
            try container.encode(total, forKey: .total)
            try container.encode(percent, forKey: .percent)
            // Present as null, not left out: a reader can rely on the key.
            try container.encode(etaSeconds, forKey: .etaSeconds)
            try container.encode(index, forKey: .index)
            try container.encode(count, forKey: .count)
            try container.encode(runEtaSeconds, forKey: .runEtaSeconds)
        }

        package enum CodingKeys: String, CodingKey {
            case event, stage, done, total, percent, etaSeconds = "eta_s", index, count, runEtaSeconds = "run_eta_s"
        }
    }

    /// A `--progress json` line saying a stage finished.
    struct StageLine: Encodable {
        package var stage: String
        package var seconds: Double
        /// The stage's number among the run's and their count, as its progress lines say them.
        var index: Int?
        var count: Int?

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("stage", forKey: .event)
            try container.encode(stage, forKey: .stage)
            try container.encode(seconds, forKey: .seconds)
            // Present as null, not left out: a reader can rely on the keys.
            try container.encode(index, forKey: .index)
            try container.encode(count, forKey: .count)
        }

        enum CodingKeys: String, CodingKey { case event, stage, seconds, index, count }
    }

    /// A `--progress json` line carrying a ``PipelineEvent``.
    struct EventLine: Encodable {
        package var event: PipelineEvent
        package var message: String
        package var subject: String?

        package func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("note", forKey: .kind)
            try container.encode(event.code, forKey: .code)
            try container.encode(event.name, forKey: .name)
            try container.encode(event.severity.rawValue, forKey: .severity)
            try container.encode(message, forKey: .message)
            try container.encode(subject, forKey: .subject)
        }

        package enum CodingKeys: String, CodingKey { case kind = "event", code, name, severity, message, subject }
    }

    /// A line with the seconds since the printer started (`t`) and the lines' ``jsonSchema``.
    struct Stamped<Line: Encodable>: Encodable {
        var line: Line
        var t: Double

        func encode(to encoder: Encoder) throws {
            try line.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(t, forKey: .t)
            try container.encode(ProgressPrinter.jsonSchema, forKey: .schema)
        }

        enum CodingKeys: String, CodingKey { case t, schema }
    }

    /// The version of the `--progress json` lines' layout, in every line as `schema`: raised when
    /// a key changes meaning or goes, not when one is added.
    public static let jsonSchema = 1

    public let mode: ProgressMode
    /// When the printer was made (``now()``): the start of the run its lines' `t` counts from.
    public let started = ProgressPrinter.now()
    let lock = NSLock()
    private var lastPercent: [String: Int] = [:]
    private var rates: [String: StageRate] = [:]
    /// Where JSON lines go; standard output unless a test or the batch takes them.
    private let writeLine: (String) -> Void
    /// The run's stages as the pipeline last told them.
    var runPlan: RunPlan?
    /// Stages resumed from checkpoints: no share of the run's time.
    var resumedStages: Set<String> = []
    /// The running stage, when it started (``now()``), how far it is (0-1) and its ETA.
    var running: (stage: String, started: Double, fraction: Double, eta: Double?)?
    /// The silent step the running stage is in, with when it started and its estimate.
    var silentStep: (name: String, started: Double, estimate: Double?)?
    /// When the last line was written (``now()``).
    var lastLineAt = ProgressPrinter.now()
    /// The closing event has been written: nothing more is.
    var isClosed = false
    /// Fires every second to write a heartbeat when a stage has been silent too long.
    var heartbeat: DispatchSourceTimer?

    public init(mode: ProgressMode) {
        self.mode = mode
        writeLine = { line in
            print(line)
            fflush(stdout)
        }
    }

    /// A printer whose JSON lines go to `writeLine` (one line, without its newline).
    package init(mode: ProgressMode, writeLine: @escaping (String) -> Void) {
        self.mode = mode
        self.writeLine = writeLine
    }

    deinit { heartbeat?.cancel() }

    /// Seconds on a monotonic clock.
    package static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// A line's `t`: seconds since `started` (``now()``), to the millisecond.
    package static func t(since started: Double) -> Double { thousandths(now() - started) }

    /// An ETA for people: "eta 8 s", "eta 3 min 20 s", "eta 1 h 05 min"; "" when unknown.
    static func etaText(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "" }
        let s = Int(seconds.rounded())
        if s < 60 { return "eta \(s) s" }
        if s < 3600 { return "eta \(s / 60) min \(String(format: "%02d", s % 60)) s" }
        return "eta \(s / 3600) h \(String(format: "%02d", s / 60 % 60)) min"
    }

    public func update(stage: String, done: Int, total: Int) -> Bool {
        let percent = total > 0 ? done * 100 / total : 100
        lock.lock()
        defer { lock.unlock() }
        // After the closing event the run is over: the stages are asked to stop.
        if isClosed { return false }
        let now = Self.now()
        let eta: Double?
        if var rate = rates[stage] {
            eta = rate.observe(done: done, total: total, now: now)
            rates[stage] = rate
        } else {
            rates[stage] = StageRate(done: done, total: total, now: now)
            eta = done >= total ? 0 : nil
        }
        if let running, running.stage == stage || stage.hasPrefix(running.stage + ": ") {
            // A part's count ("dense: depth maps", most of dense) stands for the stage's; the
            // next part starting from 0 does not take the stage back.
            let fraction = total > 0 ? Double(done) / Double(total) : 1
            self.running?.fraction = running.stage == stage ? fraction : max(running.fraction, fraction)
            self.running?.eta = eta
        }
        // Throttle: one line per percent step, so a 10,000-pair stage prints at most 101 lines.
        if lastPercent[stage] == percent && done != total { return true }
        lastPercent[stage] = percent
        let runETA = runRemainingSeconds(now: now)
        switch mode {
        case .tty:
            let line = String(format: "\r\u{1B}[2K%@%@  %d/%d  %3d%%  %@", stageNumberText, stage, done, total, percent,
                              [Self.etaText(eta), runETAText(runETA)].filter { !$0.isEmpty }.joined(separator: "  "))
            writeTerminal(line)
        case .json:
            emit(ProgressLine(stage: stage, done: done, total: total, percent: percent, etaSeconds: Self.tenths(eta),
                              index: runPlan?.index, count: runPlan?.count, runEtaSeconds: Self.tenths(runETA)))
        case .none: break
        }
        return true
    }

    public func finished(stage: String, seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { return }
        rates[stage] = nil
        lastPercent[stage] = nil
        if running?.stage == stage { running = nil }
        silentStep = nil
        switch mode {
        case .tty:
            let line = String(format: "\r\u{1B}[2K%@%@  done in %.1f s\n", stageNumberText, stage, seconds)
            writeTerminal(line)
        case .json:
            emit(StageLine(stage: stage, seconds: Self.thousandths(seconds), index: runPlan?.index, count: runPlan?.count))
        case .none: break
        }
    }

    public func event(_ event: PipelineEvent, _ message: String, subject: String?) {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { return }
        if event == .stageStarted, let subject {
            running = (subject, Self.now(), 0, nil)
            silentStep = nil
            startHeartbeat()
        }
        if event == .stageResumed, let subject { resumedStages.insert(subject) }
        switch mode {
        case .tty:
            // A failure is the error line the command prints last; said here too, it would be twice.
            if event == .stageFailed || event == .tooFewImages { return }
            // The stage's progress line says it started.
            if event == .stageStarted { return }
            // A message may quote a file name with a line break in it: it stays one line.
            writeTerminal("\r\u{1B}[2K\(message.escapingControlCharacters)\n")
        case .json:
            emit(EventLine(event: event, message: message, subject: subject))
        case .none: break
        }
    }

    public func plan(_ plan: RunPlan) {
        lock.lock()
        defer { lock.unlock() }
        runPlan = plan
    }

    public func step(stage: String, _ step: String?, estimatedSeconds: Double?) {
        lock.lock()
        defer { lock.unlock() }
        silentStep = step.map { ($0, Self.now(), estimatedSeconds) }
    }

    /// Writes one JSON line (an encoding failure, which these types cannot have, drops the line).
    func emit<T: Encodable>(_ line: T) {
        guard let text = try? JSONLine.encode(Stamped(line: line, t: Self.t(since: started))) else { return }
        writeLine(text)
        lastLineAt = Self.now()
    }

    /// Writes `text` to standard error (the terminal's display).
    func writeTerminal(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
        lastLineAt = Self.now()
    }

    /// Seconds to the tenth (an estimate): more digits would only be noise.
    static func tenths(_ seconds: Double?) -> Double? { seconds.map { ($0 * 10).rounded() / 10 } }
    /// Seconds to the millisecond (a measured time): more digits would only be noise.
    static func thousandths(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// "[4/10] " while a plan is known, else "".
    var stageNumberText: String { runPlan.map { "[\($0.index)/\($0.count)] " } ?? "" }

    /// "· run eta 3 min 20 s" once the whole run's ETA is measurable, else "".
    func runETAText(_ seconds: Double?) -> String {
        guard seconds != nil else { return "" }
        return "· run " + Self.etaText(seconds)
    }

    /// The whole run's remaining seconds at `now` (under the lock).
    func runRemainingSeconds(now: Double) -> Double? {
        guard let runPlan else { return nil }
        let fraction = runPlan.fractionDone(stageFraction: running?.fraction ?? 0, resumed: resumedStages)
        return RunPlan.remainingSeconds(elapsed: now - started, fractionDone: fraction)
    }
}
