import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// One batch process on its captures, with stand-ins for the program: what tells a finished
/// capture, a child that fails or crashes, and a capture another process holds.
final class BatchRunnerTests: XCTestCase {
    private func runner(_ root: URL, captures: [BatchCapture], options: ReconstructionOptions = ReconstructionOptions(),
                        executable: URL = URL(fileURLWithPath: "/bin/false")) -> BatchRunner {
        BatchRunner(listOrDirectory: URL(fileURLWithPath: "/captures"), captures: captures, shard: nil, outRoot: root,
                    options: options, childArguments: ["--sparse-only"], mode: .none, executable: executable)
    }

    /// A capture is finished when its report is complete, of the same input and options.
    func testAFinishedCaptureNeedsACompleteReportOfTheSameInputAndOptions() throws {
        let root = try makeBridgeTestDirectory(self)
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let capture = BatchCapture(index: 0, name: "a", input: URL(fileURLWithPath: "/captures/a"))
        let runner = runner(root, captures: [capture], options: options)
        let folder = runner.outputFolder(capture)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func report(_ fields: [String: Any]) throws {
            var object: [String: Any] = ["complete": true, "input": "/captures/a", "options_fingerprint": options.fingerprint,
                                         "images_total": 12, "images_registered": 12]
            object.merge(fields) { _, new in new }
            try JSONSerialization.data(withJSONObject: object).write(to: folder.appendingPathComponent("report.json"))
        }
        XCTAssertNil(runner.finishedReport(capture), "no report")
        try report([:])
        XCTAssertEqual(runner.finishedReport(capture)?["images_registered"] as? Int, 12)
        try report(["complete": false])
        XCTAssertNil(runner.finishedReport(capture), "a failed run's report")
        try report(["input": "/elsewhere/a"])
        XCTAssertNil(runner.finishedReport(capture), "another input")
        var other = options
        other.seed = 3
        try report(["options_fingerprint": other.fingerprint])
        XCTAssertNil(runner.finishedReport(capture), "other options")
        var meshed = options
        meshed.sparseOnly = false
        try report(["options_fingerprint": meshed.fingerprint])
        XCTAssertNil(runner.finishedReport(capture), "a run that skipped stages this one runs")
        var moreThreads = options
        moreThreads.numThreads = 16
        XCTAssertEqual(moreThreads.fingerprint, options.fingerprint, "threads do not change what a run makes")
        var otherDetail = options
        otherDetail.detail = .preview
        XCTAssertEqual(otherDetail.fingerprint, options.fingerprint, "the level keys only stages a sparse-only run skips")
        XCTAssertNotEqual(other.fingerprint, options.fingerprint)
        try Data("{\"complete\": tr".utf8).write(to: folder.appendingPathComponent("report.json"))
        XCTAssertNil(runner.finishedReport(capture), "a cut-off report")
    }

    /// A child that exits 1 without a word, one that crashes after a line, and a capture whose
    /// folder another process has locked: each fails with its reason, and the others still run.
    func testFailuresAndCrashesOfChildrenAreRecordedAndTheBatchGoesOn() throws {
        let work = try makeBridgeTestDirectory(self)
        let crash = work.appendingPathComponent("crash.sh")
        try """
            #!/bin/sh
            # A stand-in for photogrammetry that aborts as a glog CHECK does, on its second capture.
            case "$2" in */b) echo "F1201 12:00:00 solver.cc:42] Check failed: num_residuals > 0" >&2; kill -SEGV $$;; esac
            echo "photogrammetry: error: $2: 2 usable images, at least 3 needed" >&2
            exit 1
            """.write(to: crash, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(crash.path, 0o755), 0)
        let root = work.appendingPathComponent("out")
        let captures = ["a", "b", "c"].enumerated().map { BatchCapture(index: $0, name: $1, input: URL(fileURLWithPath: "/captures/\($1)")) }
        let batch = runner(root, captures: captures, executable: crash)
        // c's folder is held by "another process".
        let held = try XCTUnwrap(try CaptureLock(folder: batch.outputFolder(captures[2])))
        let record = try withExtendedLifetime(held) { try batch.run() }
        XCTAssertEqual(record.captures.map(\.status), ["failed", "failed", "failed"])
        XCTAssertEqual(record.captures[0].error, "/captures/a: 2 usable images, at least 3 needed")
        XCTAssertEqual(record.captures[1].error, "crashed (signal 11, SIGSEGV): F1201 12:00:00 solver.cc:42] Check failed: num_residuals > 0")
        XCTAssertTrue(record.captures[2].error?.hasPrefix("another process is running it (\(root.path)/c/.batch.lock is held") == true,
                      record.captures[2].error ?? "")
        XCTAssertNotNil(record.finishedAt)
        let written = try BatchRecord.load(root.appendingPathComponent("batch.json"))
        XCTAssertEqual(written.captures.map(\.status), ["failed", "failed", "failed"])

        // /bin/false: no line at all.
        let silent = try runner(work.appendingPathComponent("out2"), captures: [captures[0]]).run()
        XCTAssertEqual(silent.captures.first?.error, "exit code 1")
    }

    func testTheChildsErrorLineIsNotForwardedToTheTerminal() {
        let chunk = Data("\rfeatures  3/8\r\u{1B}[2Kphotogrammetry: error: x: 2 usable images, at least 3 needed\nafter\n".utf8)
        XCTAssertEqual(String(decoding: CaptureProcess.withoutErrorLines(chunk), as: UTF8.self), "\rfeatures  3/8\r\u{1B}[2Kafter\n")
    }

    func testACaptureLockIsExclusiveAndGoesWithItsHolder() throws {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("capture")
        var first = try CaptureLock(folder: folder)
        XCTAssertNotNil(first)
        XCTAssertNil(try CaptureLock(folder: folder), "held")
        first = nil
        XCTAssertNotNil(try CaptureLock(folder: folder), "released")
    }
}
