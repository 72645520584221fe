import Foundation
import PhotogrammetryCore

/// `photogrammetry batch-summary OUT_ROOT`: every record file of a batch (`batch.json` and the
/// shards' `batch-shard-I-of-N.json`) merged into one row per capture, as
/// `OUT_ROOT/batch-summary.json` and a table.
///
/// Each file lists every capture of the batch (`batch_captures`) besides its own, so a capture no
/// process ran (a shard that never started, another N in one of the runs) is found and flagged
/// "missing"; a capture in two files (two runs with different shardings) is flagged too.
public struct BatchSummary: Encodable, Sendable {
    /// One capture: its best entry (ok over failed over interrupted over unfinished)
    /// and where it was found.
    public struct Row: Encodable, Sendable {
        public var entry: BatchRecord.Entry
        /// The record files that list it.
        public var files: [String]
        /// Why the row needs a look: missing, in two files, unfinished (interrupted, or its
        /// process stopped before it); nil when it does not.
        public var flag: String?

        enum CodingKeys: String, CodingKey { case files, flag }

        public func encode(to encoder: Encoder) throws {
            try entry.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(files, forKey: .files)
            try c.encode(flag, forKey: .flag)
        }
    }

    /// The record files read, by name.
    public var files: [String]
    /// How many captures the batch has, all shards.
    public var capturesInBatch: Int
    /// Rows per status (ok, failed, interrupted, running, pending, missing); `twice`: captures in
    /// more than one file; `finished_before`: ok rows whose run found them finished and reused
    /// them (so ok counts every capture done, each once).
    public var counts: [String: Int]
    /// Files that cannot be read, or that disagree on the batch (its captures, its options).
    public var warnings: [String]
    public var captures: [Row]

    enum CodingKeys: String, CodingKey {
        case files, capturesInBatch = "captures_in_batch", counts, warnings, captures
    }

    /// Whether every capture of the batch is done once, none failed, and nothing disagrees.
    public var isClean: Bool {
        captures.allSatisfy { $0.entry.status == "ok" && $0.flag == nil }
            && warnings.isEmpty
    }

    /// The record file names under OUT_ROOT, sorted.
    static func recordFiles(in outRoot: URL) throws -> [String] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: outRoot.path)
        } catch {
            throw PipelineError.invalidInput("\(outRoot.path): cannot list the folder (\(error.localizedDescription))")
        }
        return entries.filter { $0 == "batch.json" || isShardFile($0) }.sorted()
    }

    /// Whether `name` is `batch-shard-I-of-N.json`.
    static func isShardFile(_ name: String) -> Bool {
        guard name.hasPrefix("batch-shard-"), name.hasSuffix(".json") else { return false }
        let middle = name.dropFirst("batch-shard-".count).dropLast(".json".count).components(separatedBy: "-of-")
        return middle.count == 2 && middle.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// Reads and merges the record files of `outRoot`.
    /// - Throws: ``PipelineError/invalidInput(_:)`` when there is none.
    public static func merge(outRoot: URL) throws -> BatchSummary {
        let names = try recordFiles(in: outRoot)
        guard !names.isEmpty else {
            throw PipelineError.invalidInput("\(outRoot.path): no batch.json or batch-shard-I-of-N.json (run photogrammetry batch first)")
        }
        var warnings: [String] = []
        var records: [(String, BatchRecord)] = []
        for name in names {
            do {
                records.append((name, try BatchRecord.load(outRoot.appendingPathComponent(name))))
            } catch {
                warnings.append("\(error)")
            }
        }
        // The batch's captures, in the order of the first file, and any another file adds.
        var expected: [String] = []
        var known = Set<String>()
        for (_, record) in records {
            for name in record.batchCaptures where known.insert(name).inserted { expected.append(name) }
        }
        if let (firstName, first) = records.first {
            for (name, record) in records.dropFirst() {
                if record.batchCaptures != first.batchCaptures {
                    warnings.append("\(name) lists other captures than \(firstName) (another LIST_OR_DIR, or it changed)")
                }
                if record.optionsFingerprint != first.optionsFingerprint {
                    warnings.append("\(name) ran with other options than \(firstName): \(record.options)")
                }
            }
        }
        var found: [String: [(file: String, entry: BatchRecord.Entry, finishedAt: String, interruptedBy: String?)]] = [:]
        for (file, record) in records {
            for entry in record.captures {
                found[entry.name, default: []].append((file, entry, record.finishedAt ?? "", record.interruptedBy))
            }
        }
        var rows: [Row] = []
        for (position, name) in expected.enumerated() {
            guard let places = found[name] else {
                let entry = BatchRecord.Entry(index: position, name: name, input: "", output: "", status: "missing")
                rows.append(Row(entry: entry, files: [], flag: "missing: in no record file (its shard did not run)"))
                continue
            }
            let best = places.min { a, b in
                (rank(a.entry.status), b.finishedAt) < (rank(b.entry.status), a.finishedAt)
            }!
            var flag: String?
            if places.count > 1 {
                flag = "twice: in " + places.map(\.file).joined(separator: ", ")
            } else if best.entry.status == "interrupted" {
                flag = "unfinished: \(best.file) was interrupted in it; run the batch again to finish it"
            } else if best.entry.status == "running" || best.entry.status == "pending" {
                flag = best.interruptedBy.map { "unfinished: \(best.file) was interrupted by \($0) before it; run the batch again to finish it" }
                    ?? "unfinished: \(best.file) stopped before it (or is still running)"
            }
            rows.append(Row(entry: best.entry, files: places.map(\.file), flag: flag))
        }
        var counts: [String: Int] = ["ok": 0, "failed": 0, "interrupted": 0, "running": 0, "pending": 0, "missing": 0]
        for row in rows { counts[row.entry.status, default: 0] += 1 }
        counts["twice"] = rows.filter { $0.files.count > 1 }.count
        counts["finished_before"] = rows.filter { $0.entry.status == "ok" && $0.entry.finishedBefore }.count
        return BatchSummary(files: names, capturesInBatch: expected.count, counts: counts, warnings: warnings, captures: rows)
    }

    /// Lower is better.
    private static func rank(_ status: String) -> Int {
        ["ok": 0, "failed": 1, "interrupted": 2, "running": 3, "pending": 4][status] ?? 5
    }

    /// The table, then one line of counts and the warnings.
    public func text() -> String {
        var notes: [String: String] = [:]
        for row in captures { if let flag = row.flag { notes[row.entry.name] = flag } }
        var lines = [BatchTable.text(captures.map(\.entry), notes: notes)]
        let twice = counts["twice"] ?? 0
        lines.append("\(capturesInBatch) captures: " + BatchTable.counts(captures.map(\.entry))
                     + (twice > 0 ? ", \(twice) in two files" : "") + " (from " + files.joined(separator: ", ") + ")")
        lines += warnings.map { "warning: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// Pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
