import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// SIGINT and SIGTERM sent to the built program mid-run, as Ctrl-C, `kill`, `timeout` and
/// Slurm's `scancel` send them: the run says so in one line and exits 130 or 143, leaves no
/// temporary folder and no child behind, and a rerun picks up where it stopped.
final class SignalTests: XCTestCase {
    static let templeImages = Repository.datasets.appendingPathComponent("templeRing-12/images")

    /// No Slurm or Kubernetes variable of the machine running the tests may pick a shard.
    static let outsideAnyCluster = BatchEndToEndTests.outsideAnyCluster

    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass; returns whether it held.
    private func eventually(_ timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// The JSON lines a running program has written to standard output so far.
    private func jsonLines(_ running: BuiltProgram.Running) -> [[String: Any]] {
        let text = (try? String(contentsOf: running.out, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Whether `lines` hold a progress line of `stage` (tagged with `capture`, when given).
    private func progress(_ lines: [[String: Any]], stage: String, capture: String? = nil) -> Bool {
        lines.contains { $0["event"] as? String == "progress" && $0["stage"] as? String == stage
            && (capture == nil || $0["capture"] as? String == capture) }
    }

    /// The subjects of `code`'s events in a finished run's standard output.
    private func subjects(_ outcome: BuiltProgram.Outcome, _ code: PipelineEvent) -> [String] {
        outcome.outputLines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["code"] as? Int == code.code else { return nil }
            return object["subject"] as? String
        }
    }

    /// The processes whose parent is `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // After "pid (comm)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    /// Whether process `pid` exists and has not ended (a zombie has ended).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// Reconstruct stopped by SIGINT in matching, then by SIGTERM in sparse: each time one line
    /// naming the signal and the exit status a shell reports for it; the third run completes,
    /// resuming features and matching from the checkpoints the interrupted runs wrote.
    func testReconstructStopsOnSIGINTAndSIGTERMAndTheRerunResumes() throws {
        let work = try makeBridgeTestDirectory(self)
        let capture = work.appendingPathComponent("templeRing-12")
        try FileManager.default.copyItem(at: Self.templeImages, to: capture)
        let output = work.appendingPathComponent("out")
        let logs = work.appendingPathComponent("logs")
        let arguments = ["reconstruct", capture.path, output.path, "--sparse-only", "--progress", "json", "--threads", "2"]
        let advice = "run the same command again to resume from the checkpoints"

        for (signal, stage, status) in [(SIGINT, "matching", Int32(130)), (SIGTERM, "sparse", Int32(143))] {
            let running = try BuiltProgram.start(arguments, logs: logs)
            let seen = eventually(90) { !running.process.isRunning || progress(jsonLines(running), stage: stage) }
            XCTAssertTrue(seen && running.process.isRunning, "\(stage) was never seen running")
            kill(running.process.processIdentifier, signal)
            let outcome = try running.wait(timeout: 30)
            XCTAssertEqual(running.process.terminationReason, .exit, "ended by its own exit, not by the signal's default action")
            XCTAssertEqual(outcome.status, status)
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: interrupted by \(Interruption.name(of: signal)); \(advice)"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("report.json").path))
            // The last JSON line is the one closing event: interrupted, with the signal and the status.
            let lines = outcome.outputLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            XCTAssertEqual(lines.count, outcome.outputLines.count, "every line is JSON")
            let closing = try XCTUnwrap(lines.last)
            XCTAssertEqual(closing["event"] as? String, "interrupted")
            XCTAssertEqual(closing["code"] as? Int, PipelineEvent.interrupted.code)
            XCTAssertEqual(closing["signal"] as? String, Interruption.name(of: signal))
            XCTAssertEqual(closing["exit_status"] as? Int, Int(status))
            XCTAssertEqual(closing["message"] as? String, "interrupted by \(Interruption.name(of: signal)); \(advice)")
            XCTAssertEqual(lines.filter { ["finished", "failed", "interrupted"].contains($0["event"] as? String) }.count, 1)
        }

        let rerun = try BuiltProgram.run(arguments, timeout: 120, logs: logs)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        let closing = try XCTUnwrap(rerun.outputLines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(closing["event"] as? String, "finished", "the rerun finishes")
        XCTAssertEqual(subjects(rerun, .stageResumed), ["segmentation", "features", "matching"])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json")))
            as? [String: Any])
        XCTAssertEqual(report["complete"] as? Bool, true)
        XCTAssertEqual(report["images_registered"] as? Int, 12)
    }

    /// Diagnose without --output works in a folder under TMPDIR; SIGINT and SIGTERM remove it.
    func testDiagnoseRemovesItsTemporaryFolderOnSIGINTAndSIGTERM() throws {
        let work = try makeBridgeTestDirectory(self)
        let logs = work.appendingPathComponent("logs")
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let temporary = work.appendingPathComponent("tmp-\(Interruption.name(of: signal))")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let running = try BuiltProgram.start(["diagnose", Self.templeImages.path, "--progress", "json", "--threads", "2"],
                                                 environment: ["TMPDIR": temporary.path], logs: logs)
            let seen = eventually(60) { !running.process.isRunning || progress(jsonLines(running), stage: "features") }
            XCTAssertTrue(seen && running.process.isRunning, "features were never seen running")
            let during = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            XCTAssertEqual(during.count, 1, "its working folder while it runs: \(during)")
            XCTAssertTrue(during.first?.hasPrefix("photogrammetry-diagnose-") == true, "\(during)")
            kill(running.process.processIdentifier, signal)
            let outcome = try running.wait(timeout: 30)
            XCTAssertEqual(outcome.status, status)
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: interrupted by \(Interruption.name(of: signal)); its temporary folder "
                                                + "was removed (--output DIR keeps one for a rerun to resume from)"])
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [], "nothing left in TMPDIR")
        }
    }

    /// Batch over two captures sent SIGTERM while the first one's child runs: the child gets it
    /// too and is waited for, the record says "interrupted" (not "running") and is finished; a
    /// rerun does both, and one more finds both done, which batch-summary counts as ok once each.
    func testBatchForwardsSIGTERMToItsChildRecordsTheCaptureAndARerunFinishes() throws {
        let work = try makeBridgeTestDirectory(self)
        let captures = work.appendingPathComponent("captures")
        let out = work.appendingPathComponent("out")
        let logs = work.appendingPathComponent("logs")
        let images = try FileManager.default.contentsOfDirectory(atPath: Self.templeImages.path).sorted()
        for (name, range) in [("a", 0..<6), ("b", 6..<12)] {
            let folder = captures.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for image in images[range] {
                try FileManager.default.copyItem(at: Self.templeImages.appendingPathComponent(image), to: folder.appendingPathComponent(image))
            }
        }
        let arguments = ["batch", captures.path, out.path, "--sparse-only", "--threads", "1", "--progress", "json"]
        let recordURL = out.appendingPathComponent("batch.json")

        let running = try BuiltProgram.start(arguments, environment: Self.outsideAnyCluster, logs: logs)
        let batch = running.process.processIdentifier
        var child: Int32?
        let seen = eventually(60) {
            // The first capture's child relays its progress: it runs, its handling installed.
            guard running.process.isRunning, progress(jsonLines(running), stage: "features", capture: "a") else {
                return !running.process.isRunning
            }
            child = Self.children(of: batch).first
            return child != nil
        }
        let pid = try XCTUnwrap(child, "the first capture's child was never seen running (\(seen))")
        addTeardownBlock { if Self.isAlive(pid) { kill(pid, SIGKILL) } }
        let command = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8).split(separator: "\0")
        XCTAssertEqual(command.dropFirst().first, "reconstruct")
        XCTAssertEqual(command.dropFirst(3).first.map(String.init), out.appendingPathComponent("a").path)
        XCTAssertEqual(try BatchRecord.load(recordURL).captures.map(\.status), ["running", "pending"])

        kill(batch, SIGTERM)
        let stopped = try running.wait(timeout: 60)
        XCTAssertEqual(stopped.status, 143)
        XCTAssertEqual(stopped.errorLines, ["photogrammetry: interrupted by SIGTERM; \(recordURL.path) says where it stopped; "
                                            + "run the same command again to finish the batch"])
        XCTAssertFalse(Self.isAlive(pid), "the child ended with the batch, not left running without it")
        let record = try BatchRecord.load(recordURL)
        XCTAssertEqual(record.captures.map(\.status), ["interrupted", "pending"])
        XCTAssertEqual(record.captures.first?.error, "interrupted by SIGTERM")
        XCTAssertEqual(record.interruptedBy, "SIGTERM")
        XCTAssertNotNil(record.finishedAt)
        let last = try XCTUnwrap(stopped.outputLines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        XCTAssertEqual(last["code"] as? Int, PipelineEvent.batchFinished.code)
        XCTAssertEqual(last["message"] as? String, "batch: interrupted by SIGTERM: 1 interrupted, 1 pending (\(recordURL.path))")
        let interrupted = try BuiltProgram.run(["batch-summary", out.path], logs: logs)
        XCTAssertEqual(interrupted.status, 1, "not done")
        XCTAssertTrue(interrupted.standardOutput.contains("2 captures: 1 interrupted, 1 pending"), interrupted.standardOutput)

        // The rerun runs the interrupted capture again (it is not finished) and the other.
        let rerun = try BuiltProgram.run(arguments, environment: Self.outsideAnyCluster, timeout: 240, logs: logs)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        let finished = try BatchRecord.load(recordURL)
        XCTAssertEqual(finished.captures.map(\.status), ["ok", "ok"])
        XCTAssertEqual(finished.captures.map(\.finishedBefore), [false, false])
        XCTAssertNil(finished.interruptedBy)
        XCTAssertEqual(finished.captures.map(\.imagesRegistered), [6, 6])

        // Once more: both found done. Done means ok, once each, with the skip still told.
        let again = try BuiltProgram.run(arguments, environment: Self.outsideAnyCluster, timeout: 60, logs: logs)
        XCTAssertEqual(again.status, 0, again.standardError)
        let skipped = try BatchRecord.load(recordURL)
        XCTAssertEqual(skipped.captures.map(\.status), ["ok", "ok"])
        XCTAssertEqual(skipped.captures.map(\.finishedBefore), [true, true])
        let summary = try BuiltProgram.run(["batch-summary", out.path], logs: logs)
        XCTAssertEqual(summary.status, 0, summary.standardError)
        XCTAssertTrue(summary.standardOutput.contains("2 captures: 2 ok (2 reused, finished before) (from batch.json)"),
                      summary.standardOutput)
        let merged = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("batch-summary.json")))
            as? [String: Any])
        let counts = try XCTUnwrap(merged["counts"] as? [String: Int])
        XCTAssertEqual(counts["ok"], 2)
        XCTAssertNil(counts["skipped"], "no status says skipped: a capture found done is ok")
        XCTAssertEqual(counts["finished_before"], 2)
        XCTAssertEqual(counts["interrupted"], 0)
        XCTAssertEqual(counts["twice"], 0)
    }
}
