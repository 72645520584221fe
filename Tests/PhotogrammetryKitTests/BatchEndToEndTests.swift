import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `photogrammetry batch` as a cluster runs it: seven captures made from Datasets/ (a folder, the
/// same as a zip, two other bundled captures, a subset, a folder of two images and a corrupt
/// zip), three shards in three processes at once, then the same again, then `batch-summary`.
final class BatchEndToEndTests: XCTestCase {
    static let names = ["broken-2", "corrupt-zip", "cutout-temple-12", "subset-8", "templeRing-12", "templeRing-12-zip",
                        "turntable-temple-12"]
    static let good = ["cutout-temple-12": 12, "subset-8": 8, "templeRing-12": 12, "templeRing-12-zip": 12, "turntable-temple-12": 12]

    /// No Slurm or Kubernetes variable of the machine running the tests may pick a shard.
    static let outsideAnyCluster = ["SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_MIN": "", "SLURM_ARRAY_TASK_MAX": "",
                                    "SLURM_ARRAY_TASK_COUNT": "", "SLURM_ARRAY_TASK_STEP": "", "JOB_COMPLETION_INDEX": ""]

    private func makeCaptures(in root: URL) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        let datasets = Repository.datasets
        for name in ["templeRing-12", "cutout-temple-12", "turntable-temple-12"] {
            try fm.copyItem(at: datasets.appendingPathComponent(name), to: root.appendingPathComponent(name))
        }
        let images = datasets.appendingPathComponent("templeRing-12/images")
        try BadInputs.writeZip(root.appendingPathComponent("templeRing-12.zip"), files: try fm.contentsOfDirectory(atPath: images.path)
            .sorted().map { ("templeRing-12/images/\($0)", images.appendingPathComponent($0)) })
        for (name, count) in [("subset-8", 8), ("broken-2", 2)] {
            let folder = root.appendingPathComponent(name)
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            try BadInputs.copyGoodImages(count, to: folder)
        }
        var generator = SystemRandomNumberGenerator()
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            .write(to: root.appendingPathComponent("corrupt.zip"))
    }

    /// Runs the three shards at once; returns their outcomes in shard order.
    private func runShards(_ input: URL, _ out: URL, logs: URL) throws -> [BuiltProgram.Outcome] {
        let running = try (0..<3).map { i in
            try BuiltProgram.start(["batch", input.path, out.path, "--shard", "\(i)/3", "--sparse-only", "--threads", "1",
                                    "--progress", "json"], environment: Self.outsideAnyCluster, logs: logs)
        }
        return try running.map { try $0.wait(timeout: 240) }
    }

    /// Every standard output line of `outcomes` as JSON (failing on any that is not).
    /// Each process's lines count `t` from the batch's start: it never runs backwards.
    private func events(_ outcomes: [BuiltProgram.Outcome]) throws -> [[String: Any]] {
        try outcomes.flatMap { outcome in
            var last = 0.0
            return try outcome.outputLines.map { line in
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
                XCTAssertTrue(object.keys.contains("capture"), line)
                XCTAssertEqual(object["schema"] as? Int, ProgressPrinter.jsonSchema, line)
                let t = try XCTUnwrap(object["t"] as? Double, line)
                XCTAssertGreaterThanOrEqual(t, last, line)
                last = t
                return object
            }
        }
    }

    /// The captures that `events` say got `code`.
    private func captures(_ events: [[String: Any]], _ code: PipelineEvent) -> [String] {
        events.filter { $0["code"] as? Int == code.code }.compactMap { $0["capture"] as? String }.sorted()
    }

    func testThreeShardsInParallelRunEachCaptureOnceAndARerunSkipsThem() throws {
        let work = try makeBridgeTestDirectory(self)
        let input = work.appendingPathComponent("captures")
        let out = work.appendingPathComponent("out")
        let logs = work.appendingPathComponent("logs")
        try makeCaptures(in: input)

        // 1. Three shards at once.
        let start = Date()
        let first = try runShards(input, out, logs: logs)
        let firstSeconds = Date().timeIntervalSince(start)
        // broken-2 (0) and corrupt-zip (1) are in shards 0 and 1.
        XCTAssertEqual(first.map(\.status), [1, 1, 0], first.map(\.standardError).joined(separator: "\n"))
        XCTAssertEqual(first[0].errorLines.last,
                       "photogrammetry: error: 1 of 3 captures failed (broken-2); see \(out.path)/batch-shard-0-of-3.json")
        XCTAssertTrue(first[2].standardError.hasPrefix("capture "), "the table beside the JSON lines")
        let firstEvents = try events(first)
        XCTAssertEqual(captures(firstEvents, .captureStarted), Self.names, "every capture started exactly once")
        XCTAssertEqual(captures(firstEvents, .captureFinished), Self.good.keys.sorted())
        XCTAssertEqual(captures(firstEvents, .captureFailed), ["broken-2", "corrupt-zip"])
        XCTAssertEqual(firstEvents.filter { $0["code"] as? Int == PipelineEvent.batchFinished.code }.count, 3)
        XCTAssertTrue(firstEvents.contains { $0["capture"] as? String == "broken-2" && $0["code"] as? Int == PipelineEvent.tooFewImages.code },
                      "the capture's own events are relayed, tagged with it")

        var recorded: [String] = []
        for i in 0..<3 {
            let record = try BatchRecord.load(out.appendingPathComponent("batch-shard-\(i)-of-3.json"))
            XCTAssertEqual(record.batchCaptures, Self.names)
            XCTAssertNotNil(record.finishedAt)
            XCTAssertEqual(record.captures.map(\.index), (0..<7).filter { $0 % 3 == i })
            recorded += record.captures.map(\.name)
            for entry in record.captures {
                if let registered = Self.good[entry.name] {
                    XCTAssertEqual(entry.status, "ok", entry.name)
                    XCTAssertEqual(entry.imagesRegistered, registered, entry.name)
                    XCTAssertEqual(entry.imagesTotal, registered, entry.name)
                    XCTAssertNil(entry.error)
                    let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf:
                        out.appendingPathComponent("\(entry.name)/report.json"))) as? [String: Any])
                    XCTAssertEqual(report["complete"] as? Bool, true)
                    XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(entry.name)/sparse/images.txt").path))
                } else {
                    XCTAssertEqual(entry.status, "failed", entry.name)
                }
            }
            if let broken = record.captures.first(where: { $0.name == "broken-2" }) {
                XCTAssertEqual(broken.error, "\(input.path)/broken-2: 2 usable images, at least 3 needed")
                XCTAssertEqual(broken.imagesTotal, 2, "from the report the failed run wrote")
            }
            if let corrupt = record.captures.first(where: { $0.name == "corrupt-zip" }) {
                XCTAssertTrue(corrupt.error?.hasPrefix("corrupt.zip: ") == true, corrupt.error ?? "")
            }
        }
        XCTAssertEqual(recorded.sorted(), Self.names, "each capture in exactly one shard's record")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasSuffix(".json") }.sorted(),
                       Self.names, "one folder per capture")

        // 2. The same again: the finished captures are skipped, the failed ones tried again.
        let again = Date()
        let second = try runShards(input, out, logs: logs)
        let secondSeconds = Date().timeIntervalSince(again)
        XCTAssertEqual(second.map(\.status), [1, 1, 0])
        let secondEvents = try events(second)
        XCTAssertEqual(captures(secondEvents, .captureSkipped), Self.good.keys.sorted())
        XCTAssertEqual(captures(secondEvents, .captureStarted), ["broken-2", "corrupt-zip"])
        XCTAssertLessThan(secondSeconds, firstSeconds / 2, "a rerun does not reconstruct again")
        var foundDone: [String] = []
        for i in 0..<3 {
            for entry in try BatchRecord.load(out.appendingPathComponent("batch-shard-\(i)-of-3.json")).captures
            where entry.finishedBefore {
                XCTAssertEqual(entry.status, "ok", "\(entry.name): done once, counted as done")
                XCTAssertGreaterThan(entry.seconds ?? 0, 0.5, "\(entry.name): the time its outputs took, from its report")
                foundDone.append(entry.name)
            }
        }
        XCTAssertEqual(foundDone.sorted(), Self.good.keys.sorted(), "the finished captures, each marked as found done")

        // 3. One table of all shards.
        let summary = try BuiltProgram.run(["batch-summary", out.path], logs: logs)
        XCTAssertEqual(summary.status, 1, "two captures failed")
        XCTAssertEqual(summary.errorLines, ["photogrammetry: error: 2 of 7 captures need a look (broken-2 failed, corrupt-zip failed); "
                                            + "see \(out.path)/batch-summary.json"])
        let rows = summary.outputLines.dropFirst().prefix(7).map { $0.split(separator: " ").prefix(3).map(String.init) }
        XCTAssertEqual(rows.map { $0[0] }, Self.names)
        XCTAssertEqual(rows.map { $0[1] }, ["failed", "failed", "ok", "ok", "ok", "ok", "ok"])
        XCTAssertEqual(rows.map { $0[2] }, ["0/2", "-", "12/12", "8/8", "12/12", "12/12", "12/12"])
        XCTAssertEqual(summary.outputLines.dropFirst().prefix(7).map { $0.hasSuffix("reused: finished before with the same options") },
                       [false, false, true, true, true, true, true])
        XCTAssertTrue(summary.standardOutput.contains("7 captures: 5 ok (5 reused, finished before), 2 failed (from batch-shard-0-of-3.json, "
                                                      + "batch-shard-1-of-3.json, batch-shard-2-of-3.json)"), summary.standardOutput)
        let merged = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("batch-summary.json")))
            as? [String: Any])
        XCTAssertEqual(merged["captures_in_batch"] as? Int, 7)
        let counts = try XCTUnwrap(merged["counts"] as? [String: Int])
        XCTAssertEqual(counts["missing"], 0)
        XCTAssertEqual(counts["twice"], 0)
        XCTAssertEqual(counts["ok"], 5)
        XCTAssertEqual(counts["finished_before"], 5)
        print(String(format: "batch of 7 in 3 shards: %.1f s, rerun %.1f s", firstSeconds, secondSeconds))
    }

    /// `--no-mesh` skips the mesh stages, so it is part of the options fingerprint: a batch with
    /// it, then one without, meshes every capture, resuming each up to its dense cloud; a third
    /// batch finds them all done.
    func testANoMeshBatchThenABatchMeshesEveryCapture() throws {
        let work = try makeBridgeTestDirectory(self)
        let input = work.appendingPathComponent("captures"), out = work.appendingPathComponent("out")
        let logs = work.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Repository.datasets.appendingPathComponent("templeRing-12/images"),
                                         to: input.appendingPathComponent("templeRing-12"))
        let subset = input.appendingPathComponent("subset-8")
        try FileManager.default.createDirectory(at: subset, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(8, to: subset)
        let names = ["subset-8", "templeRing-12"]
        func batch(_ extra: [String]) throws -> [[String: Any]] {
            let outcome = try BuiltProgram.run(["batch", input.path, out.path, "--detail", "preview", "--threads", "2",
                                                "--progress", "json"] + extra,
                                               environment: Self.outsideAnyCluster, timeout: 900, logs: logs)
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            return try events([outcome])
        }
        func report(_ name: String) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("\(name)/report.json")))
                as? [String: Any])
        }
        func stages(_ name: String, _ flag: String) throws -> [String] {
            try XCTUnwrap(report(name)["stages"] as? [[String: Any]]).filter { $0[flag] as? Bool == true }.compactMap { $0["name"] as? String }
        }
        func modelFiles(_ name: String) -> [Bool] {
            OutputLayout(folder: out.appendingPathComponent(name)).modelFiles.map { FileManager.default.fileExists(atPath: $0.path) }
        }

        let first = try batch(["--no-mesh"])
        XCTAssertEqual(captures(first, .captureFinished), names)
        for name in names {
            XCTAssertTrue(try stages(name, "skipped").contains("surface"), name)
            XCTAssertEqual(modelFiles(name), [false, false, false], name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(name)/dense.ply").path), name)
        }

        let second = try batch([])
        XCTAssertEqual(captures(second, .captureSkipped), [], "a capture finished without a mesh is not done when one is asked")
        XCTAssertEqual(captures(second, .captureFinished), names)
        for name in names {
            XCTAssertEqual(modelFiles(name), [true, true, true], name)
            XCTAssertFalse(try stages(name, "skipped").contains("surface"), name)
            XCTAssertEqual(try report(name)["complete"] as? Bool, true)
            let resumed = try stages(name, "resumed")
            XCTAssertEqual(Array(resumed.prefix(4)), ["segmentation", "features", "matching", "sparse"], name)
            XCTAssertEqual(resumed.last, "dense", "\(name): resumed up to its dense cloud, then meshed")
        }

        let third = try batch([])
        XCTAssertEqual(captures(third, .captureSkipped), names)
    }

    func testBatchCommandLineErrorsAreOneLine() throws {
        let logs = try makeBridgeTestDirectory(self)
        let input = logs.appendingPathComponent("captures")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("a"), withIntermediateDirectories: true)
        let out = logs.appendingPathComponent("out").path
        let cases: [([String], [String: String], Int32, String)] = [
            (["batch", input.path, out, "--shard", "3/3"], [:], 2, "--shard 3/3: I must be from 0 to 2 (0-based, below N)"),
            (["batch", input.path, out], ["JOB_COMPLETION_INDEX": "1"], 2,
             "JOB_COMPLETION_INDEX=1 is set but --shards N is not: give the Job's completions as --shards"),
            (["batch", input.path], [:], 2, "batch takes LIST_OR_DIR (a list file or a folder of captures) and OUT_ROOT"),
            (["batch", input.path, out, "--bogus"], [:], 2, "unknown option --bogus"),
            (["batch", logs.appendingPathComponent("nothing").path, out], [:], 1, "\(logs.path)/nothing: no such file or folder"),
            (["batch-summary", input.path], [:], 1,
             "\(input.path): no batch.json or batch-shard-I-of-N.json (run photogrammetry batch first)"),
        ]
        for (arguments, environment, status, message) in cases {
            let outcome = try BuiltProgram.run(arguments, environment: Self.outsideAnyCluster.merging(environment) { _, new in new },
                                               timeout: 30, logs: logs)
            XCTAssertEqual(outcome.status, status, "\(arguments)")
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(message)"], "\(arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "refused before anything is written")
    }
}
