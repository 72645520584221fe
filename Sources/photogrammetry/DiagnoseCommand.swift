import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetrySparse

/// `photogrammetry diagnose INPUT [--json] [--output DIR] [options]`: features and poses only,
/// then the capture diagnosis — on the terminal, or as the report's JSON.
enum DiagnoseCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.diagnose.parse(arguments)
        guard parsed.positionals.count == 1 else {
            throw ArgumentParser.Failure(description: "diagnose takes one INPUT (a folder, a .zip or a video)")
        }
        var options = try PipelineArguments.options(from: parsed)
        options.sparseOnly = true
        let json = parsed.flags.contains("json")
        // JSON owns standard output; progress then goes to the terminal or nowhere.
        var mode = try PipelineArguments.progressMode(from: parsed)
        if json && mode == .json { mode = .none }

        let input = try PipelineArguments.path(parsed.positionals[0], "INPUT", kind: PipelineArguments.inputKind)
        // Without --output the working files live in a private temporary folder (mkdtemp: a
        // link planted in /tmp cannot redirect it) that goes when done.
        let keep = try parsed["output"].map { try PipelineArguments.path($0, "--output", kind: PipelineArguments.outputKind) }
        let output = try keep ?? TemporaryFolder.make(prefix: "photogrammetry-diagnose-")
        // The temporary folder goes on SIGINT and SIGTERM too; a kept one is resumed by a rerun.
        let removal = keep == nil ? Interruption.register { removeWhileWrittenTo(output) } : nil
        Interruption.advice = keep == nil ? "its temporary folder was removed (--output DIR keeps one for a rerun to resume from)"
            : "run the same command again to resume from the checkpoints"
        defer {
            if keep == nil { try? FileManager.default.removeItem(at: output) }
            if let removal { Interruption.unregister(removal) }
        }

        let printer = ProgressPrinter(mode: mode)
        try RunClosing.run(printer) {
            let pipeline = ReconstructionPipeline(input: input, output: output, options: options, progress: printer)
            let report: Report
            do {
                report = try pipeline.run()
            } catch PipelineError.tooFewImages(let usable, let required, let input, let rejected, _) where keep == nil {
                // The report with the reasons goes with the temporary folder: the line carries them.
                throw PipelineError.tooFewImages(usable: usable, required: required, input: input, rejected: rejected, report: nil)
            }
            if json {
                FileHandle.standardOutput.write(try report.jsonData())
                print()
            } else {
                print(ReportSummary.text(report))
                if let keep { print("report: \(OutputLayout(folder: keep).reportHTML.path)") }
            }
            var outcome = ReconstructCommand.outcome(report, OutputLayout(folder: output))
            // The temporary folder goes when the command ends: only a kept one's files are outputs.
            if keep == nil { outcome.outputs = [:] }
            printer.close(.finished(outcome))
        }
    }

    /// Removes `folder` while the interrupted run may still be writing into it: a file made
    /// during the removal fails it (the folder is not empty), so it is tried again.
    static func removeWhileWrittenTo(_ folder: URL) {
        for _ in 0..<5 where FileManager.default.fileExists(atPath: folder.path) {
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
