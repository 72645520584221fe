import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The command specifications in process: parsing by a spec, help seen before errors, defaults
/// read from the option structs, and docs/cli.md as the specs render it.
final class CommandSpecTests: XCTestCase {
    /// docs/cli.md, found from this file's path.
    static let reference = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/cli.md")

    func testTheReferenceIsWhatTheSpecsRender() throws {
        let written = try? String(contentsOf: Self.reference, encoding: .utf8)
        XCTAssertTrue(written == CommandSpec.markdown, "docs/cli.md differs from the command specifications: regenerate it "
                      + "with `swift build -c release && .build/release/photogrammetry help --markdown > docs/cli.md`")
    }

    func testEveryOptionIsParsedByItsSpecAndNoOther() throws {
        for spec in CommandSpec.all {
            for option in spec.options {
                let words = ["--\(option.name)"] + (option.valueName == nil ? [] : [option.allowedValues.first ?? "4"])
                let parsed = try spec.parse(words + ["x"])
                XCTAssertEqual(parsed.positionals, ["x"], "\(spec.name) \(words)")
                XCTAssertTrue(option.valueName == nil ? parsed.flags.contains(option.name) : parsed[option.name] != nil,
                              "\(spec.name) \(words)")
            }
            XCTAssertThrowsError(try spec.parse(["--bogus"])) { XCTAssertEqual("\($0)", "unknown option --bogus") }
        }
        XCTAssertThrowsError(try CommandSpec.stats.parse(["--cameras", "m"])) { XCTAssertEqual("\($0)", "unknown option --cameras") }
    }

    func testOptionNamesAreUniquePerCommand() {
        for spec in CommandSpec.all {
            XCTAssertEqual(Set(spec.options.map(\.name)).count, spec.options.count, spec.name)
            let shorts = spec.options.compactMap(\.shortName)
            XCTAssertEqual(Set(shorts).count, shorts.count, spec.name)
        }
        XCTAssertEqual(Set(CommandSpec.all.map(\.name)).count, CommandSpec.all.count)
    }

    func testShortAliasesAndHelpBeforeErrors() throws {
        let spec = CommandSpec.reconstruct
        XCTAssertTrue(try spec.parse(["-h"]).flags.contains("help"))
        XCTAssertTrue(spec.asksForHelp(["in", "--bogus", "-h"]), "help however wrong the rest is")
        XCTAssertTrue(spec.asksForHelp(["--detail=raw", "--help"]))
        XCTAssertFalse(spec.asksForHelp(["--threads", "-h"]), "an option's value")
        XCTAssertFalse(spec.asksForHelp(["--", "-h"]), "a positional after --")
        XCTAssertEqual(try spec.parse(["-", "-3", "-x"]).positionals, ["-", "-3", "-x"], "other one-dash words stay positionals")
    }

    /// `--threads` is checked once, as it is parsed, with the range and message the library's
    /// own check uses.
    func testThreadsAreCheckedWhenParsed() throws {
        for spec in [CommandSpec.reconstruct, .diagnose, .match, .batch, .mesh, .texture] {
            XCTAssertEqual(try spec.parse(["--threads", "3"]).threads, 3, spec.name)
            for value in ["0", "257", "two", ""] {
                XCTAssertThrowsError(try spec.parse(["--threads", value]), spec.name) {
                    XCTAssertEqual("\($0)", "--threads \(value): want an integer from 1 to 256")
                }
            }
        }
        var options = ReconstructionOptions()
        options.numThreads = 300
        XCTAssertThrowsError(try options.validate()) {
            XCTAssertEqual("\($0)", "invalid option: --threads 300: want an integer from 1 to 256")
        }
    }

    func testDefaultsAreTheOptionStructs() {
        let run = ReconstructionOptions()
        for spec in [CommandSpec.reconstruct, .batch] {
            XCTAssertEqual(spec.option("detail")?.defaultValue, run.detail.rawValue)
        }
        for spec in [CommandSpec.reconstruct, .diagnose, .match, .batch] {
            XCTAssertEqual(spec.option("threads")?.defaultValue, "\(run.numThreads)")
            XCTAssertEqual(spec.option("pairs")?.defaultValue, run.matching.pairs.strategy.rawValue)
            XCTAssertEqual(spec.option("max-megapixels")?.defaultValue, "120")
        }
        XCTAssertEqual(CommandSpec.mesh.option("detail")?.defaultValue, SurfaceOptions().detail.rawValue)
        XCTAssertEqual(CommandSpec.mesh.option("threads")?.defaultValue, "\(SurfaceOptions().numThreads)")
        XCTAssertEqual(CommandSpec.texture.option("detail")?.defaultValue, run.detail.rawValue)
        XCTAssertEqual(CommandSpec.reconstruct.option("detail")?.allowedValues, DetailLevel.allCases.map(\.rawValue))
    }

    /// What the DESIGN's contract and the old usage named is still there.
    func testTheContractsOptionsAreAllThere() {
        let want: [String: [String]] = [
            "reconstruct": ["detail", "room", "mask", "intrinsics", "priors", "sparse-only", "no-mesh", "camera-model", "threads",
                            "seed", "progress", "pairs", "neighbours", "keyframes", "max-megapixels"],
            "diagnose": ["json", "output", "room", "mask", "intrinsics", "priors", "threads", "progress"],
            "match": ["transitive", "pairs", "progress"],
            "batch": ["shard", "shards", "dry-run", "detail", "priors", "threads", "progress"],
            "compare-cloud": ["sparse", "reference-sparse", "tau", "region", "spacing"],
            "stats": ["json"], "render": ["cameras"], "mesh": ["detail", "room", "threads", "progress"],
            "texture": ["priors", "poses", "detail", "mask", "threads", "max-megapixels", "progress"],
        ]
        for (name, options) in want {
            let spec = CommandSpec.named(name)
            XCTAssertNotNil(spec, name)
            for option in options + ["help"] { XCTAssertNotNil(spec?.option(option), "\(name) --\(option)") }
        }
        for name in ["batch-summary", "compare"] { XCTAssertNotNil(CommandSpec.named(name)) }
        // --progress is one option, its text written once, wherever it is taken.
        let progress = CommandSpec.reconstruct.option("progress")
        for name in ["diagnose", "match", "batch", "mesh", "texture"] {
            let option = CommandSpec.named(name)?.option("progress")
            XCTAssertEqual(option?.help, progress?.help, name)
            XCTAssertEqual(option?.allowedValues, ["tty", "json", "none"], name)
        }
    }

    func testHelpLinesFitTheWidth() {
        for spec in CommandSpec.all {
            for line in spec.helpText.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, CommandSpec.width, "\(spec.name): \(line)")
            }
        }
        for line in CommandSpec.globalHelp.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, CommandSpec.width) }
    }
}
