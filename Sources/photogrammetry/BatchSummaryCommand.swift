import Foundation
import PhotogrammetryKit
import PhotogrammetryCore

/// `photogrammetry batch-summary OUT_ROOT`: the record files of every shard merged into one
/// table and `OUT_ROOT/batch-summary.json`.
enum BatchSummaryCommand {
    /// A batch that is not done: a capture failed, missing, unfinished or run twice.
    struct NotClean: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.batchSummary.parse(arguments)
        guard parsed.positionals.count == 1 else {
            throw ArgumentParser.Failure(description: "batch-summary takes OUT_ROOT (the folder a batch wrote)")
        }
        let outRoot = try PipelineArguments.path(parsed.positionals[0], "OUT_ROOT", kind: "the folder a batch wrote")
        let summary = try BatchSummary.merge(outRoot: outRoot)
        let url = outRoot.appendingPathComponent("batch-summary.json")
        try writeAtomically(summary.jsonData(), to: url)
        print(summary.text())
        print("summary: \(url.path)")
        fflush(stdout)
        guard summary.isClean else {
            let flagged = summary.captures.filter { !($0.entry.status == "ok" && $0.flag == nil) }
            var problems = flagged.prefix(3).map { "\($0.entry.name) \($0.flag.map { $0.components(separatedBy: ":")[0] } ?? $0.entry.status)" }
            if flagged.count > 3 { problems.append("and \(flagged.count - 3) more") }
            if flagged.isEmpty { problems = summary.warnings }
            throw NotClean(description: "\(flagged.count) of \(summary.capturesInBatch) captures need a look ("
                           + problems.joined(separator: ", ") + "); see \(url.path)")
        }
    }
}
