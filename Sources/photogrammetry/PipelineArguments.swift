import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// The options `reconstruct`, `diagnose` and `match` share, from parsed arguments (their
/// ``CommandSpec``s say which they take).
enum PipelineArguments {
    /// What OUTPUT and `--output` must name, for messages.
    static let outputKind = "a folder (. for the current one)"
    /// What INPUT must name, for messages.
    static let inputKind = "a folder or a .zip of images, or a video"

    /// Builds pipeline options from what the user typed.
    static func options(from parsed: ArgumentParser.Parsed) throws -> ReconstructionOptions {
        var options = ReconstructionOptions()
        options.room = parsed.flags.contains("room")
        if let text = parsed["intrinsics"] {
            do {
                options.fixedIntrinsics = try FixedIntrinsics(parsing: text)
            } catch let error as FixedIntrinsics.ParseError {
                throw ArgumentParser.Failure(description:
                    "--intrinsics \(text): \(error); want fx,fy,cx,cy (four finite numbers, fx and fy above zero)")
            }
        }
        if let text = parsed["camera-model"] {
            guard let model = CameraModel(name: text.uppercased()) else {
                throw ArgumentParser.Failure(description: "--camera-model wants one of "
                    + CameraModel.allCases.map(\.name).joined(separator: ", "))
            }
            options.cameraModel = model
        }
        if let threads = parsed.threads { options.numThreads = threads }
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
        if let text = parsed["keyframes"] {
            guard let n = Int(text), n >= 3 else { throw ArgumentParser.Failure(description: "--keyframes wants an integer of at least 3") }
            options.keyframes.target = n
        }
        (options.markers, options.userScale) = try ScaleArguments.read(markers: parsed["markers"], scale: parsed["scale"],
                                                                       knownDistance: parsed["known-distance"])
        if let text = parsed["max-megapixels"] { options.decodeLimits = try decodeLimits(text) }
        if let text = parsed["mask"] {
            options.mask = text == "none" ? .disabled : .given(try MaskSource.load(try path(text, "--mask", kind: "a mask.json or a folder of masks")))
        }
        if let text = parsed["auto-mask"] {
            guard text == "on" || text == "off" else { throw ArgumentParser.Failure(description: "--auto-mask \(text): want on or off") }
            options.automaticMasks.enabled = text == "on"
        }
        if let text = parsed["sensor-depth"] {
            guard text == "on" || text == "off" else { throw ArgumentParser.Failure(description: "--sensor-depth \(text): want on or off") }
            options.sensorDepth = text == "on"
        }
        if let text = parsed["close-envelope"] {
            guard text == "on" || text == "off" else { throw ArgumentParser.Failure(description: "--close-envelope \(text): want on or off") }
            options.closeEnvelope = text == "on"
        }
        if let text = parsed["planar-priors"] {
            switch text {
            case "auto": options.planarPriors = nil
            case "on": options.planarPriors = true
            case "off": options.planarPriors = false
            default: throw ArgumentParser.Failure(description: "--planar-priors \(text): want auto, on or off")
            }
        }
        if let text = parsed["priors"] {
            // Read when the run starts (the capture's image names are needed to match frames).
            if text == "none" {
                options.priors = .disabled
            } else {
                let url = try path(text, "--priors", kind: "a transforms.json")
                guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else {
                    throw ArgumentParser.Failure(description: "--priors \(text): no such file (want a transforms.json, or none)")
                }
                options.priors = .given(url)
            }
        }
        return options
    }

    /// The decode limit `--max-megapixels N` asks for: a number of megapixels above 0 and at
    /// most ``DecodeLimits/largestMegapixels``.
    static func decodeLimits(_ text: String) throws -> DecodeLimits {
        var limits = DecodeLimits()
        guard let megapixels = Double(text), megapixels.isFinite, megapixels > 0,
              megapixels <= DecodeLimits.largestMegapixels, UInt64((megapixels * 1e6).rounded()) > 0 else {
            throw ArgumentParser.Failure(description:
                "--max-megapixels wants a number of megapixels above 0 and at most \(Int(DecodeLimits.largestMegapixels))")
        }
        limits.maxMegapixels = megapixels
        return limits
    }

    /// The file or folder a path argument names. An empty argument (`""`, an unset shell
    /// variable) is refused: as a URL it would be the current folder, and a run would write its
    /// report over whatever is there.
    /// - Parameter kind: what the argument should name, for the message ("a folder").
    static func path(_ text: String, _ role: String, kind: String) throws -> URL {
        guard !text.isEmpty else {
            throw ArgumentParser.Failure(description: "\(role) is empty (\"\"): name \(kind)")
        }
        return URL(fileURLWithPath: text)
    }

    /// The progress mode asked for, else a redrawn line when standard error is a terminal.
    static func progressMode(from parsed: ArgumentParser.Parsed) throws -> ProgressMode {
        guard let mode = ProgressMode(rawValue: parsed["progress"] ?? (isatty(2) != 0 ? "tty" : "none")) else {
            throw ArgumentParser.Failure(description: "--progress must be "
                                         + CommandSpec.list(ProgressMode.allCases.map(\.rawValue), "or"))
        }
        return mode
    }
}
