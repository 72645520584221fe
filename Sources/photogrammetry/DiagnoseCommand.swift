import Foundation
import PhotogrammetryKit

/// `photogrammetry diagnose INPUT [--json] [--output DIR] [options]`: features and poses only,
/// then the capture diagnosis — on the terminal, or as the report's JSON.
enum DiagnoseCommand {
    static let parser = ArgumentParser(valueOptions: PipelineArguments.valueOptions.union(["output"]),
                                       flags: PipelineArguments.flags.union(["json"]))

    static func run(_ arguments: [String]) throws {
        let parsed = try parser.parse(arguments)
        guard parsed.positionals.count == 1 else {
            throw ArgumentParser.Failure(description: "diagnose takes one INPUT (a folder or a .zip)")
        }
        var options = try PipelineArguments.options(from: parsed)
        options.sparseOnly = true
        let json = parsed.flags.contains("json")
        // JSON owns standard output; progress then goes to the terminal or nowhere.
        var mode = try PipelineArguments.progressMode(from: parsed)
        if json && mode == .json { mode = .none }

        // Without --output the working files live in a temporary folder that goes when done.
        let keep = parsed["output"].map { URL(fileURLWithPath: $0) }
        let output = keep ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("photogrammetry-diagnose-\(ProcessInfo.processInfo.processIdentifier)")
        defer { if keep == nil { try? FileManager.default.removeItem(at: output) } }

        let pipeline = ReconstructionPipeline(input: URL(fileURLWithPath: parsed.positionals[0]), output: output,
                                              options: options, progress: ProgressPrinter(mode: mode))
        let report = try pipeline.run()
        if json {
            FileHandle.standardOutput.write(try report.jsonData())
            print()
        } else {
            print(ReportSummary.text(report))
            if let keep { print("report: \(keep.appendingPathComponent("report.html").path)") }
        }
    }
}
