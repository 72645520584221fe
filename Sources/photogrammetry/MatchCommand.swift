import Foundation
import PhotogrammetryKit
import PhotogrammetryCore

/// `photogrammetry match INPUT OUTPUT [--transitive] [options]`: ingest, features and matching
/// only (and one transitive pass); writes `OUTPUT/matches.json` (the pairs tried, the verified ones
/// with their match counts, timings).
enum MatchCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.match.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "match takes INPUT and OUTPUT")
        }
        let options = try PipelineArguments.options(from: parsed)
        let input = try PipelineArguments.path(parsed.positionals[0], "INPUT", kind: PipelineArguments.inputKind)
        let output = try PipelineArguments.path(parsed.positionals[1], "OUTPUT", kind: PipelineArguments.outputKind)
        let layout = OutputLayout(folder: output)
        let printer = ProgressPrinter(mode: try PipelineArguments.progressMode(from: parsed))
        try RunClosing.run(printer) {
            let pipeline = ReconstructionPipeline(input: input, layout: layout, options: options, progress: printer)
            let summary = try pipeline.runMatching(transitive: parsed.flags.contains("transitive"))
            let seconds = summary.stages.filter { $0.name == "matching" || $0.name == "rematching" }.reduce(0) { $0 + $1.seconds }
            print(String(format: "%d images, %d pairs tried (%@), %d verified, matching %.1f s: %@", summary.images.count,
                         summary.tried.count, summary.strategy, summary.verified.count, seconds,
                         layout.matches.path))
            printer.close(.finished(.init(status: "complete", outputs: RunClosing.existing([("matches_json", layout.matches)]),
                                          figures: .init(imagesTotal: summary.images.count))))
        }
    }
}
