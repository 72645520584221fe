import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A batch stopped by a signal, in-process with stand-ins for the program: the running child is
/// sent the signal and waited for, its capture recorded "interrupted", no other started; and what
/// the record and the summary then say.
final class BatchInterruptionTests: XCTestCase {
    private func captures(_ names: [String]) -> [BatchCapture] {
        names.enumerated().map { BatchCapture(index: $0, name: $1, input: URL(fileURLWithPath: "/captures/\($1)")) }
    }

    private func runner(_ root: URL, _ captures: [BatchCapture], executable: URL) -> BatchRunner {
        BatchRunner(listOrDirectory: URL(fileURLWithPath: "/captures"), captures: captures, shard: nil, outRoot: root,
                    options: ReconstructionOptions(), childArguments: ["--sparse-only"], mode: .none, executable: executable)
    }

    private func script(_ text: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("stand-in-\(UUID().uuidString).sh")
        try ("#!/bin/sh\n" + text + "\n").write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(url.path, 0o755), 0)
        return url
    }

    func testInterruptSendsTheSignalToTheChildAndStartsNoOtherCapture() throws {
        let work = try makeBridgeTestDirectory(self)
        // A capture that would take 30 s; it marks its output folder ($3) once it runs.
        let child = try script("touch \"$3/started\"\nexec sleep 30", in: work)
        let root = work.appendingPathComponent("out")
        let batch = runner(root, captures(["a", "b"]), executable: child)
        let started = root.appendingPathComponent("a/started")
        let done = expectation(description: "run returned")
        let box = RecordBox()
        let begin = Date()
        DispatchQueue.global().async {
            box.result = Result { try batch.run() }
            done.fulfill()
        }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: started.path) && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: started.path), "the first child never ran")
        batch.interrupt(SIGTERM)
        wait(for: [done], timeout: 20)
        XCTAssertLessThan(Date().timeIntervalSince(begin), 20, "the child was stopped, not waited out")
        let record = try XCTUnwrap(box.result).get()
        XCTAssertEqual(record.captures.map(\.status), ["interrupted", "pending"])
        XCTAssertEqual(record.captures[0].error, "interrupted by SIGTERM")
        XCTAssertEqual(record.interruptedBy, "SIGTERM")
        XCTAssertNotNil(record.finishedAt)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("b").path), "b never started")
        let written = try BatchRecord.load(root.appendingPathComponent("batch.json"))
        XCTAssertEqual(written.captures.map(\.status), ["interrupted", "pending"])
        XCTAssertEqual(written.interruptedBy, "SIGTERM")
    }

    /// A signal to one child alone (not to the batch): that capture is interrupted, not failed,
    /// and the batch goes on with the next.
    func testAChildInterruptedOnItsOwnIsRecordedAndTheBatchGoesOn() throws {
        let work = try makeBridgeTestDirectory(self)
        let child = try script("""
            case "$2" in */a) echo "photogrammetry: interrupted by SIGTERM; run the same command again to resume from the checkpoints" >&2; exit 143;; esac
            echo "photogrammetry: error: $2: 2 usable images, at least 3 needed" >&2
            exit 1
            """, in: work)
        let record = try runner(work.appendingPathComponent("out"), captures(["a", "b"]), executable: child).run()
        XCTAssertEqual(record.captures.map(\.status), ["interrupted", "failed"])
        XCTAssertEqual(record.captures.map(\.error), ["interrupted by SIGTERM", "/captures/b: 2 usable images, at least 3 needed"])
        XCTAssertNil(record.interruptedBy, "the batch itself ran to the end")
    }

    func testTheChildsInterruptionLineIsNotForwardedToTheTerminal() {
        let chunk = Data("features  3/8\rphotogrammetry: interrupted by SIGINT; run the same command again\nafter\n".utf8)
        XCTAssertEqual(String(decoding: CaptureProcess.withoutErrorLines(chunk), as: UTF8.self), "features  3/8\rafter\n")
    }

    func testTheSummaryTellsAnInterruptedShardAndCountsFinishedCapturesAsOk() throws {
        let root = try makeBridgeTestDirectory(self)
        let names = ["a", "b", "c", "d", "e"]
        func entry(_ name: String, _ status: String, finishedBefore: Bool = false) -> BatchRecord.Entry {
            var entry = BatchRecord.Entry(index: names.firstIndex(of: name)!, name: name, input: "/captures/\(name)",
                                          output: "/out/\(name)", status: status)
            entry.finishedBefore = finishedBefore
            if status == "interrupted" { entry.error = "interrupted by SIGTERM" }
            return entry
        }
        let interrupted = BatchRecord(input: "/captures", shard: Shard(index: 0, count: 2, source: ""), options: "detail=full",
                                      optionsFingerprint: "fnv1a64:1", batchCaptures: names, startedAt: "2026-01-01T00:00:00Z",
                                      finishedAt: "2026-01-01T00:10:00Z", interruptedBy: "SIGTERM",
                                      captures: [entry("a", "ok"), entry("c", "interrupted"), entry("e", "pending")])
        let done = BatchRecord(input: "/captures", shard: Shard(index: 1, count: 2, source: ""), options: "detail=full",
                               optionsFingerprint: "fnv1a64:1", batchCaptures: names, startedAt: "2026-01-01T00:00:00Z",
                               finishedAt: "2026-01-01T00:20:00Z",
                               captures: [entry("b", "ok", finishedBefore: true), entry("d", "ok")])
        for record in [interrupted, done] {
            try writeAtomically(record.jsonData(), to: root.appendingPathComponent(BatchRecord.fileName(record.shard)))
        }
        let summary = try BatchSummary.merge(outRoot: root)
        XCTAssertEqual(summary.captures.map(\.entry.status), ["ok", "ok", "interrupted", "ok", "pending"])
        XCTAssertEqual(summary.captures.map(\.flag), [
            nil, nil, "unfinished: batch-shard-0-of-2.json was interrupted in it; run the batch again to finish it", nil,
            "unfinished: batch-shard-0-of-2.json was interrupted by SIGTERM before it; run the batch again to finish it",
        ])
        XCTAssertEqual(summary.counts["ok"], 3)
        XCTAssertEqual(summary.counts["finished_before"], 1)
        XCTAssertEqual(summary.counts["interrupted"], 1)
        XCTAssertEqual(summary.counts["pending"], 1)
        XCTAssertFalse(summary.isClean)
        let text = summary.text()
        XCTAssertTrue(text.contains("5 captures: 3 ok (1 reused, finished before), 1 interrupted, 1 pending"), text)
        let row = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("b ") })
        XCTAssertTrue(row.hasSuffix("reused: finished before with the same options"), String(row))
        XCTAssertTrue(text.split(separator: "\n").first?.hasSuffix("seconds  note") == true, text)
    }

    /// A record written before the interruption and finished-before fields still loads; its
    /// "skipped" (a capture found done) is read as what it was: ok, finished before.
    func testARecordWithoutTheNewerFieldsLoads() throws {
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("batch.json")
        try Data("""
            {"version": "1", "input": "/captures", "shard": null, "options": "detail=full", "options_fingerprint": "fnv1a64:1",
             "batch_captures": ["a"], "started_at": "2026-01-01T00:00:00Z", "finished_at": null,
             "captures": [{"index": 0, "name": "a", "input": "/captures/a", "output": "/out/a", "status": "skipped",
                           "images_registered": 12, "images_total": 12, "capture_kind": null, "azimuth_coverage_deg": null,
                           "elevation_spread_deg": null, "seconds": 3.5, "error": null}]}
            """.utf8).write(to: url)
        let record = try BatchRecord.load(url)
        XCTAssertNil(record.interruptedBy)
        XCTAssertEqual(record.captures.map(\.status), ["ok"])
        XCTAssertEqual(record.captures.map(\.finishedBefore), [true])
        XCTAssertEqual(record.captures.first?.imagesRegistered, 12)
    }

    func testTheInterruptionLineAndExitStatus() {
        XCTAssertEqual(Interruption.message(for: SIGINT, advice: nil), "photogrammetry: interrupted by SIGINT")
        XCTAssertEqual(Interruption.message(for: SIGTERM, advice: "run it again"), "photogrammetry: interrupted by SIGTERM; run it again")
        XCTAssertEqual(Interruption.exitStatus(for: SIGINT), 130)
        XCTAssertEqual(Interruption.exitStatus(for: SIGTERM), 143)
    }
}

/// The outcome of a run on another thread.
private final class RecordBox: @unchecked Sendable {
    var result: Result<BatchRecord, Error>?
}
