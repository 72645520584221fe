import Foundation
import PhotogrammetryKit
import PhotogrammetryCore

/// `photogrammetry batch LIST_OR_DIR OUT_ROOT [--shard I/N | --shards N] [--dry-run]
/// [reconstruct options]`: every capture of a list or folder reconstructed into its own folder
/// under OUT_ROOT, resumably, in shards a cluster's job array picks.
enum BatchCommand {
    /// A batch in which some captures failed (each is in the record and the table).
    struct CapturesFailed: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.batch.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "batch takes LIST_OR_DIR (a list file or a folder of captures) and OUT_ROOT")
        }
        let options = try ReconstructCommand.options(from: parsed)
        try options.validate()
        let mode = try PipelineArguments.progressMode(from: parsed)
        let list = try PipelineArguments.path(parsed.positionals[0], "LIST_OR_DIR", kind: "a list file or a folder of captures")
        let outRoot = try PipelineArguments.path(parsed.positionals[1], "OUT_ROOT", kind: PipelineArguments.outputKind)
        let shard: Shard?
        do {
            shard = try Shard.resolve(shard: parsed["shard"], shards: parsed["shards"],
                                      environment: ProcessInfo.processInfo.environment)
        } catch let failure as Shard.Failure {
            throw ArgumentParser.Failure(description: failure.description)
        }
        // Each capture's reconstruct gets the options as typed, in a fixed order.
        let childArguments = parsed.values.keys.filter { !CommandSpec.batchOwnOptions.contains($0) }.sorted().flatMap { ["--\($0)", parsed.values[$0]!] }
            + parsed.flags.filter { !CommandSpec.batchOwnOptions.contains($0) }.sorted().map { "--\($0)" }
        let runner = BatchRunner(listOrDirectory: list, captures: try BatchCapture.discover(list, outRoot: outRoot), shard: shard,
                                 outRoot: outRoot, options: options, childArguments: childArguments, mode: mode,
                                 executable: executable())
        if parsed.flags.contains("dry-run") {
            print(planText(runner))
            return
        }
        // A signal stops the running child and is recorded before the process ends (130 or 143),
        // so that no child outlives the batch and the record does not say "running".
        Interruption.advice = "\(runner.recordURL.path) says where it stopped; run the same command again to finish the batch"
        let record = try Interruption.deferring({ runner.interrupt($0) }) { try runner.run() }
        // Standard output carries the JSON lines with --progress json; the table goes beside them.
        let table = BatchTable.text(record.captures)
        if mode == .json {
            FileHandle.standardError.write(Data((table + "\n").utf8))
        } else {
            print(table)
            print("record: \(runner.recordURL.path)")
        }
        // The table before the error line, also when standard output is a file.
        fflush(stdout)
        // A capture interrupted on its own (its child signalled, not the batch) is not done either.
        let failed = record.captures.filter { $0.status == "failed" || $0.status == "interrupted" }
        if !failed.isEmpty {
            let interrupted = failed.filter { $0.status == "interrupted" }.count
            let verb = interrupted == 0 ? "failed" : interrupted == failed.count ? "were interrupted" : "failed or were interrupted"
            throw CapturesFailed(description: "\(failed.count) of \(record.captures.count) captures \(verb) ("
                                 + failed.map(\.name).joined(separator: ", ") + "); see \(runner.recordURL.path)")
        }
    }

    /// The shard and, per capture, whether it would run or be skipped.
    static func planText(_ runner: BatchRunner) -> String {
        let plan = runner.plan()
        let shard = runner.shard.map { "shard \($0.index) of \($0.count) (\($0.source))" } ?? "the whole batch"
        var lines = ["\(shard): \(plan.count) of \(runner.captures.count) captures, record \(runner.recordURL.path)"]
        let width = plan.map(\.capture.name.count).max() ?? 0
        for item in plan {
            lines.append("  \(item.capture.index)  " + item.capture.name.padding(toLength: width, withPad: " ", startingAt: 0)
                         + "  " + (item.finished ? "skip" : "run ") + "  " + item.capture.input.path.escapingControlCharacters)
        }
        return lines.joined(separator: "\n")
    }

    /// This program's own file, which runs each capture: /proc/self/exe (whatever PATH or
    /// the current folder say), else the path it was started by.
    static func executable() -> URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }
}
