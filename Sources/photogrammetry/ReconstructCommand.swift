import Foundation
import PhotogrammetryKit

/// `photogrammetry reconstruct INPUT OUTPUT [options]`.
enum ReconstructCommand {
    static let parser = ArgumentParser(
        valueOptions: ["detail", "mask", "intrinsics", "priors", "threads", "progress", "seed"],
        flags: ["room", "sparse-only"])

    static func run(_ arguments: [String]) throws {
        let parsed = try parser.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "reconstruct takes INPUT and OUTPUT")
        }
        var options = ReconstructionOptions()
        if let detail = parsed["detail"] { options.detail = detail }
        options.room = parsed.flags.contains("room")
        options.sparseOnly = parsed.flags.contains("sparse-only")
        if let text = parsed["intrinsics"] {
            guard let k = FixedIntrinsics(parsing: text) else {
                throw ArgumentParser.Failure(description: "--intrinsics wants fx,fy,cx,cy (four numbers, fx, fy > 0)")
            }
            options.fixedIntrinsics = k
        }
        if let text = parsed["threads"] {
            guard let n = Int(text), n >= 1 else { throw ArgumentParser.Failure(description: "--threads wants a positive integer") }
            options.numThreads = n
        }
        if let text = parsed["seed"] {
            guard let seed = UInt64(text) else { throw ArgumentParser.Failure(description: "--seed wants a non-negative integer") }
            options.seed = seed
        }
        if let text = parsed["mask"] {
            options.mask = text == "none" ? .disabled : .given(try MaskSource.load(URL(fileURLWithPath: text)))
        }
        if parsed["priors"] != nil {
            throw ArgumentParser.Failure(description: "--priors is not available in this version yet")
        }
        let mode = ProgressMode(rawValue: parsed["progress"] ?? (isatty(2) != 0 ? "tty" : "none"))
        guard let mode else { throw ArgumentParser.Failure(description: "--progress must be tty, json or none") }

        let output = URL(fileURLWithPath: parsed.positionals[1])
        let pipeline = ReconstructionPipeline(input: URL(fileURLWithPath: parsed.positionals[0]), output: output,
                                              options: options, progress: ProgressPrinter(mode: mode))
        let report = try pipeline.run()
        if mode != .json {
            print(String(format: "%d/%d images registered (alignment %.0f%%), %d points, reprojection error %.2f px",
                         report.imagesRegistered, report.imagesTotal, report.alignmentRatio * 100,
                         report.points3D, report.meanReprojectionErrorPx))
            for rejected in report.rejectedImages { print("  rejected \(rejected.name): \(rejected.reason)") }
            print("model: \(output.appendingPathComponent("sparse").path)  report: \(output.appendingPathComponent("report.json").path)")
        }
    }
}
