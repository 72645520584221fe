import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Merging the shards' records: one row per capture, those no shard ran and those two ran flagged.
final class BatchSummaryTests: XCTestCase {
    private let names = ["a", "b", "c", "d", "e"]

    private func record(_ shard: Shard?, _ statuses: [String: String], options: String = "detail=full") -> BatchRecord {
        BatchRecord(input: "/captures", shard: shard, options: options, optionsFingerprint: "fnv1a64:" + options,
                    batchCaptures: names, startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T01:00:00Z",
                    captures: statuses.keys.sorted().map { name in
                        var entry = BatchRecord.Entry(index: names.firstIndex(of: name)!, name: name, input: "/captures/\(name)",
                                                      output: "/out/\(name)", status: statuses[name]!)
                        entry.imagesTotal = 12
                        entry.imagesRegistered = statuses[name] == "failed" ? 0 : 12
                        entry.seconds = 5
                        if statuses[name] == "failed" { entry.error = "\(name): 2 usable images, at least 3 needed" }
                        return entry
                    })
    }

    private func write(_ record: BatchRecord, to root: URL) throws {
        try writeAtomically(record.jsonData(), to: root.appendingPathComponent(BatchRecord.fileName(record.shard)))
    }

    func testThreeShardsMergeIntoOneRowPerCapture() throws {
        let root = try makeBridgeTestDirectory(self)
        try write(record(Shard(index: 0, count: 3, source: ""), ["a": "ok", "d": "skipped"]), to: root)
        try write(record(Shard(index: 1, count: 3, source: ""), ["b": "failed", "e": "ok"]), to: root)
        try write(record(Shard(index: 2, count: 3, source: ""), ["c": "ok"]), to: root)
        try Data("not a record".utf8).write(to: root.appendingPathComponent("batch-shard-x-of-3.json"))
        let summary = try BatchSummary.merge(outRoot: root)
        XCTAssertEqual(summary.files, ["batch-shard-0-of-3.json", "batch-shard-1-of-3.json", "batch-shard-2-of-3.json"])
        XCTAssertEqual(summary.captures.map(\.entry.name), names)
        XCTAssertEqual(summary.captures.map(\.entry.status), ["ok", "failed", "ok", "ok", "ok"])
        XCTAssertEqual(summary.captures.compactMap(\.flag), [])
        XCTAssertEqual(summary.counts["failed"], 1)
        XCTAssertEqual(summary.counts["twice"], 0)
        XCTAssertFalse(summary.isClean, "a capture failed")
        XCTAssertTrue(summary.text().contains("5 captures: 4 ok (1 reused, finished before), 1 failed"), summary.text())
    }

    /// A rerun finds every capture done: each stays counted as finished, whether its record says
    /// so as this version writes it (ok, finished before) or as older ones did ("skipped"), and
    /// nothing in the summary calls a finished capture skipped.
    func testCapturesFoundFinishedStayCountedAsFinished() throws {
        let root = try makeBridgeTestDirectory(self)
        var rerun = record(Shard(index: 0, count: 2, source: ""), ["a": "ok", "c": "ok", "e": "ok"])
        for k in rerun.captures.indices { rerun.captures[k].finishedBefore = true }
        try write(rerun, to: root)
        try write(record(Shard(index: 1, count: 2, source: ""), ["b": "skipped", "d": "skipped"]), to: root)
        let summary = try BatchSummary.merge(outRoot: root)
        XCTAssertEqual(summary.captures.map(\.entry.status), ["ok", "ok", "ok", "ok", "ok"])
        XCTAssertEqual(summary.counts["ok"], 5)
        XCTAssertEqual(summary.counts["finished_before"], 5)
        XCTAssertNil(summary.counts["skipped"])
        XCTAssertTrue(summary.isClean, summary.text())
        let text = summary.text()
        XCTAssertTrue(text.contains("5 captures: 5 ok (5 reused, finished before) (from "), text)
        XCTAssertFalse(text.contains("skipped"), text)
        let json = try XCTUnwrap(String(data: summary.jsonData(), encoding: .utf8))
        XCTAssertFalse(json.contains("skipped"), json)
    }

    func testCapturesNoShardRanOrTwoRanAreFlagged() throws {
        let root = try makeBridgeTestDirectory(self)
        // Shards of 3 for 0 and 1; shard 2 (c) never ran. batch.json from an unsharded run had a and b too.
        try write(record(Shard(index: 0, count: 3, source: ""), ["a": "ok", "d": "ok"]), to: root)
        try write(record(Shard(index: 1, count: 3, source: ""), ["b": "ok", "e": "running"]), to: root)
        try write(record(nil, ["a": "failed", "b": "ok"]), to: root)
        let summary = try BatchSummary.merge(outRoot: root)
        let rows = Dictionary(uniqueKeysWithValues: summary.captures.map { ($0.entry.name, $0) })
        XCTAssertEqual(rows["c"]?.entry.status, "missing")
        XCTAssertEqual(rows["c"]?.flag, "missing: in no record file (its shard did not run)")
        XCTAssertEqual(rows["a"]?.entry.status, "ok", "the best of its entries")
        XCTAssertEqual(rows["a"]?.flag, "twice: in batch-shard-0-of-3.json, batch.json")
        XCTAssertEqual(rows["b"]?.files, ["batch-shard-1-of-3.json", "batch.json"])
        XCTAssertEqual(rows["e"]?.flag, "unfinished: batch-shard-1-of-3.json stopped before it (or is still running)")
        XCTAssertNil(rows["d"]?.flag)
        XCTAssertEqual(summary.counts["missing"], 1)
        XCTAssertEqual(summary.counts["twice"], 2)
        XCTAssertFalse(summary.isClean)
        // The JSON has every row's keys.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: summary.jsonData()) as? [String: Any])
        let first = try XCTUnwrap((json["captures"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(first.keys), ["index", "name", "input", "output", "status", "finished_before", "images_registered", "images_total",
                                         "capture_kind", "azimuth_coverage_deg", "elevation_spread_deg", "seconds", "error",
                                         "files", "flag"])
    }

    func testShardsOfAnotherBatchOrOtherOptionsAreWarnedOf() throws {
        let root = try makeBridgeTestDirectory(self)
        try write(record(Shard(index: 0, count: 2, source: ""), ["a": "ok", "c": "ok", "e": "ok"]), to: root)
        try write(record(Shard(index: 1, count: 2, source: ""), ["b": "ok", "d": "ok"], options: "detail=preview"), to: root)
        let summary = try BatchSummary.merge(outRoot: root)
        XCTAssertEqual(summary.warnings, ["batch-shard-1-of-2.json ran with other options than batch-shard-0-of-2.json: detail=preview"])
        XCTAssertFalse(summary.isClean)
        XCTAssertThrowsError(try BatchSummary.merge(outRoot: try makeBridgeTestDirectory(self))) {
            XCTAssertTrue("\($0)".hasSuffix(": no batch.json or batch-shard-I-of-N.json (run photogrammetry batch first)"))
        }
    }
}
