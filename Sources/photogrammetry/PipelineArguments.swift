import Foundation
import PhotogrammetryKit

/// The options `reconstruct` and `diagnose` share, from parsed arguments.
enum PipelineArguments {
    static let valueOptions: Set<String> = ["mask", "intrinsics", "priors", "threads", "progress", "seed", "camera-model",
                                            "pairs", "neighbours"]
    static let flags: Set<String> = ["room"]

    /// Builds pipeline options from what the user typed.
    static func options(from parsed: ArgumentParser.Parsed) throws -> ReconstructionOptions {
        var options = ReconstructionOptions()
        options.room = parsed.flags.contains("room")
        if let text = parsed["intrinsics"] {
            guard let k = FixedIntrinsics(parsing: text) else {
                throw ArgumentParser.Failure(description: "--intrinsics wants fx,fy,cx,cy (four numbers, fx, fy > 0)")
            }
            options.fixedIntrinsics = k
        }
        if let text = parsed["camera-model"] {
            guard let model = CameraModel(name: text.uppercased()) else {
                throw ArgumentParser.Failure(description: "--camera-model wants one of "
                    + CameraModel.allCases.map(\.name).joined(separator: ", "))
            }
            options.cameraModel = model
        }
        if let text = parsed["threads"] {
            guard let n = Int(text), n >= 1 else { throw ArgumentParser.Failure(description: "--threads wants a positive integer") }
            options.numThreads = n
        }
        if let text = parsed["seed"] {
            guard let seed = UInt64(text) else { throw ArgumentParser.Failure(description: "--seed wants a non-negative integer") }
            options.seed = seed
        }
        if let text = parsed["pairs"] {
            guard let strategy = PairSelectionOptions.Strategy(rawValue: text) else {
                let names = PairSelectionOptions.Strategy.allCases.map(\.rawValue).joined(separator: "|")
                throw ArgumentParser.Failure(description: "--pairs must be one of \(names)")
            }
            options.matching.pairs.strategy = strategy
        }
        if let text = parsed["neighbours"] {
            guard let k = Int(text), k >= 1 else { throw ArgumentParser.Failure(description: "--neighbours wants a positive integer") }
            options.matching.pairs.retrievalNeighbours = k
        }
        if let text = parsed["mask"] {
            options.mask = text == "none" ? .disabled : .given(try MaskSource.load(URL(fileURLWithPath: text)))
        }
        if parsed["priors"] != nil {
            throw ArgumentParser.Failure(description: "--priors is not available in this version yet")
        }
        return options
    }

    /// The progress mode asked for, else a redrawn line when standard error is a terminal.
    static func progressMode(from parsed: ArgumentParser.Parsed) throws -> ProgressMode {
        guard let mode = ProgressMode(rawValue: parsed["progress"] ?? (isatty(2) != 0 ? "tty" : "none")) else {
            throw ArgumentParser.Failure(description: "--progress must be tty, json or none")
        }
        return mode
    }
}
