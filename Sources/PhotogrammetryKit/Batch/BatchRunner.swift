import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
#elseif canImport(Darwin)
import Darwin
#endif

/// `photogrammetry batch`: the captures of one shard (or of the whole batch), one after another,
/// each in its own folder under OUT_ROOT and its own child process, recorded as they go.
///
/// A capture whose folder holds a complete `report.json` of the same input and options
/// (``ReconstructionOptions/fingerprint``) is skipped; any other is run again from its
/// checkpoints. One failure never stops the others; a signal (``interrupt(_:)``) stops them all.
public final class BatchRunner: @unchecked Sendable {
    /// What one capture of the shard will be, before anything runs (`--dry-run`).
    public struct Plan: Sendable {
        public var capture: BatchCapture
        /// Whether it is finished already and will be skipped.
        public var finished: Bool
    }

    /// LIST_OR_DIR.
    public let listOrDirectory: URL
    public let captures: [BatchCapture]
    public let shard: Shard?
    public let outRoot: URL
    public let options: ReconstructionOptions
    /// The reconstruct options to give each child, as typed (without `--progress`).
    public let childArguments: [String]
    public let mode: ProgressMode
    /// Our own executable, which runs each capture.
    public let executable: URL
    /// Where JSON lines go (standard output by default).
    let writeLine: (String) -> Void
    private let lock = NSLock()
    /// The capture whose child is running, which JSON lines are tagged with.
    private var currentCapture: String?
    /// The process id of the running child, which ``interrupt(_:)`` signals.
    private var child: Int32?
    /// The signal that stopped this run, once ``interrupt(_:)`` has been called.
    private var interruption: Int32?
    /// When the batch started: every line's `t` counts from it, a child's lines included.
    private let started = ProgressPrinter.now()

    /// - Parameter captures: every capture of the batch (all shards), sorted, from ``BatchCapture/discover(_:)``.
    public init(listOrDirectory: URL, captures: [BatchCapture], shard: Shard?, outRoot: URL, options: ReconstructionOptions,
                childArguments: [String], mode: ProgressMode, executable: URL) {
        self.listOrDirectory = listOrDirectory.standardizedFileURL
        self.captures = captures
        self.shard = shard
        self.outRoot = outRoot.standardizedFileURL
        self.options = options
        self.childArguments = childArguments
        self.mode = mode
        self.executable = executable
        writeLine = { line in
            print(line)
            fflush(stdout)
        }
    }

    /// This process's captures: the shard's, in batch order.
    public var shardCaptures: [BatchCapture] { captures.filter { shard?.contains($0.index) ?? true } }

    /// The record file this process writes.
    public var recordURL: URL { outRoot.appendingPathComponent(BatchRecord.fileName(shard)) }

    /// The output folder of `capture`.
    public func outputFolder(_ capture: BatchCapture) -> URL {
        outRoot.appendingPathComponent(capture.name, isDirectory: true)
    }

    /// What a run would do, capture by capture, without running anything.
    public func plan() -> [Plan] {
        shardCaptures.map { Plan(capture: $0, finished: finishedReport($0) != nil) }
    }

    /// The parsed `report.json` of `capture` when it is finished: complete, of the same input,
    /// with the same options fingerprint; else nil.
    public func finishedReport(_ capture: BatchCapture) -> [String: Any]? {
        let url = OutputLayout(folder: outputFolder(capture)).reportJSON
        guard let data = try? Data(contentsOf: url),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              report["complete"] as? Bool == true,
              report["options_fingerprint"] as? String == options.fingerprint,
              report["input"] as? String == capture.input.path else { return nil }
        return report
    }

    /// Stops the run on `signal` (SIGINT or SIGTERM, from ``Interruption/deferring(_:_:)``):
    /// the running child is sent the same signal and ends (its checkpoints kept), ``run()``
    /// records its capture "interrupted", starts no other, writes the record and returns.
    /// Safe from any thread; a repeated signal is sent on again.
    public func interrupt(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if interruption == nil { interruption = signal }
        if let child { kill(child, signal) }
    }

    /// The signal that stopped the run, nil while it goes on.
    private var interruptedBy: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return interruption
    }

    /// Runs the shard's captures and returns the record, also written to ``recordURL`` after
    /// each capture starts and ends, and when a signal stops the run (``interrupt(_:)``).
    public func run() throws -> BatchRecord {
        try OutputFolder.prepare(outRoot, work: nil, role: "OUT_ROOT")
        let printer = ProgressPrinter(mode: mode) { [weak self] line in self?.relay(line, fromChild: false) }
        var record = BatchRecord(input: listOrDirectory.path, shard: shard, options: options.fingerprintText,
                                 optionsFingerprint: options.fingerprint, batchCaptures: captures.map(\.name),
                                 startedAt: BatchRecord.timestamp(), finishedAt: nil,
                                 captures: shardCaptures.map {
                                     BatchRecord.Entry(index: $0.index, name: $0.name, input: $0.input.path,
                                                       output: outputFolder($0).path, status: "pending")
                                 })
        try writeAtomically(record.jsonData(), to: recordURL)
        let mine = shardCaptures
        for (position, capture) in mine.enumerated() {
            if interruptedBy != nil { break }
            let ordinal = "\(position + 1) of \(mine.count)"
            let start = DispatchTime.now()
            var entry = record.captures[position]
            if let report = finishedReport(capture) {
                // Done, once: counted as ok, with the fact that this run found it done.
                entry.status = "ok"
                entry.finishedBefore = true
                entry.take(report: report)
                // What making it took (its report's stage times), not the check: a summary after
                // a rerun still tells what each capture costs.
                let stages = (report["stages"] as? [[String: Any]])?.compactMap { $0["seconds"] as? Double }
                entry.seconds = stages.map { ($0.reduce(0, +) * 10).rounded() / 10 } ?? seconds(since: start)
                record.captures[position] = entry
                printer.event(.captureSkipped, "\(capture.name) (\(ordinal)): ok, finished before with the same options (reused)",
                              subject: capture.name)
                try writeAtomically(record.jsonData(), to: recordURL)
                continue
            }
            let output = outputFolder(capture)
            guard let lock = try CaptureLock(folder: output) else {
                entry.status = "failed"
                entry.error = "another process is running it (\(output.path)/.batch.lock is held: the same capture "
                    + "in two shardings, or a shard started twice)"
                record.captures[position] = entry
                printer.event(.captureFailed, "\(capture.name) (\(ordinal)): failed: \(entry.error!)", subject: capture.name)
                try writeAtomically(record.jsonData(), to: recordURL)
                continue
            }
            entry.status = "running"
            record.captures[position] = entry
            try writeAtomically(record.jsonData(), to: recordURL)
            printer.event(.captureStarted, "\(capture.name) (\(ordinal)): started, \(capture.input.path)", subject: capture.name)
            // An earlier run's report (other options, or a failed run) must not outlive this run:
            // if this one dies before writing its own, the capture must not look finished.
            let reportURL = OutputLayout(folder: output).reportJSON
            try? FileManager.default.removeItem(at: reportURL)
            let outcome = try withExtendedLifetime(lock) { try runChild(capture, output: output) }
            entry.seconds = seconds(since: start)
            if let data = try? Data(contentsOf: reportURL),
               let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                entry.take(report: report)
            }
            if !outcome.succeeded, let signal = interruptedBy.map(Interruption.name(of:)) ?? outcome.interruption {
                // Not finished: a rerun runs it again, from the checkpoints it wrote.
                entry.status = "interrupted"
                entry.error = "interrupted by \(signal)"
                // A signal to the batch is told in its own one line; one to the child alone is
                // told here, and the batch goes on.
                if interruptedBy == nil {
                    printer.event(.captureFailed, "\(capture.name) (\(ordinal)): interrupted by \(signal)", subject: capture.name)
                }
            } else if let failure = outcome.failure {
                entry.status = "failed"
                entry.error = failure
                printer.event(.captureFailed, "\(capture.name) (\(ordinal)): failed: \(failure)", subject: capture.name)
            } else {
                entry.status = "ok"
                let registered = "\(entry.imagesRegistered ?? 0)/\(entry.imagesTotal ?? 0)"
                printer.event(.captureFinished, String(format: "%@ (%@): ok, %@ registered, %.1f s", capture.name, ordinal,
                                                       registered, entry.seconds ?? 0), subject: capture.name)
            }
            record.captures[position] = entry
            try writeAtomically(record.jsonData(), to: recordURL)
        }
        record.finishedAt = BatchRecord.timestamp()
        record.interruptedBy = interruptedBy.map(Interruption.name(of:))
        try writeAtomically(record.jsonData(), to: recordURL)
        let counts = BatchTable.counts(record.captures)
        if let signal = record.interruptedBy {
            // People get the interruption's one line; the JSON stream still gets its end.
            if mode == .json {
                printer.event(.batchFinished, "batch: interrupted by \(signal): " + counts + " (\(recordURL.path))")
            }
        } else {
            printer.event(.batchFinished, "batch: " + counts + " (\(recordURL.path))")
        }
        return record
    }

    /// Runs `reconstruct` on `capture` in a child; its JSON lines are relayed tagged with the capture.
    private func runChild(_ capture: BatchCapture, output: URL) throws -> CaptureProcess.Outcome {
        let childMode: ProgressMode = mode == .json ? .json : (mode == .tty ? .tty : .none)
        let arguments = ["reconstruct", capture.input.path, output.path] + childArguments + ["--progress", childMode.rawValue]
        lock.lock()
        currentCapture = capture.name
        lock.unlock()
        defer {
            lock.lock()
            currentCapture = nil
            lock.unlock()
        }
        return try CaptureProcess.run(executable: executable, arguments: arguments,
                                      standardOutputLine: mode == .json ? { [weak self] in self?.relay($0, fromChild: true) } : nil,
                                      forwardStandardError: mode == .tty) { [weak self] pid in self?.track(child: pid) }
    }

    /// Keeps the running child's process id for ``interrupt(_:)``; a signal that came while it
    /// was starting is sent on at once.
    private func track(child pid: Int32?) {
        lock.lock()
        defer { lock.unlock() }
        child = pid
        if let pid, let interruption { kill(pid, interruption) }
    }

    /// Writes one JSON line with the capture it belongs to as `capture` (null for the batch's
    /// own lines about no capture); a child's line that is not JSON is wrapped, so that every
    /// line stays one JSON object.
    private func relay(_ line: String, fromChild: Bool) {
        lock.lock()
        let capture = currentCapture
        lock.unlock()
        var object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            ?? ["event": "output", "text": line]
        if object["capture"] == nil {
            // The batch's own capture events name their capture as subject.
            let subject = object["subject"] as? String
            object["capture"] = fromChild ? capture ?? NSNull() : (subject.map { $0 as Any } ?? NSNull())
        }
        object["t"] = ProgressPrinter.t(since: started)
        object["schema"] = ProgressPrinter.jsonSchema
        guard let text = try? JSONLine.encode(object: object) else { return }
        writeLine(text)
    }

    private func seconds(since start: DispatchTime) -> Double {
        (Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 * 10).rounded() / 10
    }
}
