import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetrySparse

/// `photogrammetry reconstruct INPUT OUTPUT [options]`.
enum ReconstructCommand {
    /// The pipeline options of a reconstruct command line (also each capture's, in a batch).
    static func options(from parsed: ArgumentParser.Parsed) throws -> ReconstructionOptions {
        var options = try PipelineArguments.options(from: parsed)
        if let text = parsed["detail"] {
            guard let detail = DetailLevel(parsing: text) else {
                throw ArgumentParser.Failure(description: "--detail must be one of \(DetailLevel.names)")
            }
            options.detail = detail
        }
        options.sparseOnly = parsed.flags.contains("sparse-only")
        options.noMesh = parsed.flags.contains("no-mesh")
        options.markerFrame = parsed.flags.contains("marker-frame")
        return options
    }

    /// A finished run's closing line: its status, the outputs it wrote and the report's headline.
    static func outcome(_ report: Report, _ layout: OutputLayout) -> ProgressPrinter.RunOutcome {
        let outputs = RunClosing.existing([("report_json", layout.reportJSON), ("report_html", layout.reportHTML),
                                           ("sparse", layout.sparse()), ("dense_ply", layout.denseCloud)]
                                          + layout.modelFiles.map { (RunClosing.modelOutputName($0), $0) })
        let figures = ProgressPrinter.RunFigures(
            imagesRegistered: report.imagesRegistered, imagesTotal: report.imagesTotal, verdict: CaptureVerdict(report).level.rawValue,
            meanReprojectionErrorPx: (report.meanReprojectionErrorPx * 1000).rounded() / 1000, triangles: report.triangles)
        return .init(status: report.complete ? "complete" : "incomplete", outputs: outputs, figures: figures)
    }

    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.reconstruct.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "reconstruct takes INPUT and OUTPUT")
        }
        let options = try self.options(from: parsed)
        let mode = try PipelineArguments.progressMode(from: parsed)

        let input = try PipelineArguments.path(parsed.positionals[0], "INPUT", kind: PipelineArguments.inputKind)
        let output = try PipelineArguments.path(parsed.positionals[1], "OUTPUT", kind: PipelineArguments.outputKind)
        let layout = OutputLayout(output: output)
        let printer = ProgressPrinter(mode: mode)
        try RunClosing.run(printer) {
            let pipeline = ReconstructionPipeline(input: input, layout: layout, options: options, progress: printer)
            let report = try pipeline.run()
            if mode != .json {
                print(ReportSummary.text(report))
                print("model: \(layout.sparse().path)  report: \(layout.reportHTML.path)")
                if report.densePoints != nil { print("dense: \(layout.denseCloud.path)") }
                if let triangles = report.triangles, let texture = report.textureSize {
                    print("models: \(layout.modelFiles.map(\.path).joined(separator: ", ")) (\(triangles) triangles, \(texture)² texture)")
                }
            }
            // The file asked for by name needs the mesh stages, which these flags skip.
            if let file = layout.modelFile, options.sparseOnly || options.noMesh {
                let flag = options.sparseOnly ? "--sparse-only" : "--no-mesh"
                let made = options.sparseOnly ? "the sparse model and report" : "the sparse model, dense cloud and report"
                throw PipelineError.io("\(file.path) not written: \(flag) stops before the mesh; \(made) are in \(layout.root.path)")
            }
            printer.close(.finished(outcome(report, layout)))
        }
    }
}
