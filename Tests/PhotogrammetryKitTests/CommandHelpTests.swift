import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The built binary's help: `SUB --help`, `SUB -h` and `help SUB` print the same text for
/// every subcommand, naming every option of its spec with its default; the global usage lists
/// every subcommand. Run after `swift build` (the executable sits beside the test bundle).
final class CommandHelpTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    private func run(_ arguments: [String]) throws -> Outcome {
        try BuiltProgram.run(arguments, timeout: 30, logs: try makeBridgeTestDirectory(self))
    }

    /// `text` with every run of spaces and line breaks one space, as a wrapped line reads.
    private func flat(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    func testEverySubcommandsHelpThreeWays() throws {
        for spec in CommandSpec.all {
            let outcomes = try [[spec.name, "--help"], [spec.name, "-h"], ["help", spec.name]].map { try run($0) }
            for (outcome, way) in zip(outcomes, ["--help", "-h", "help"]) {
                XCTAssertEqual(outcome.status, 0, "\(spec.name) \(way): \(outcome.standardError)")
                XCTAssertEqual(outcome.standardError, "", "\(spec.name) \(way)")
                XCTAssertEqual(outcome.standardOutput, spec.helpText + "\n", "\(spec.name) \(way)")
            }
            let help = flat(outcomes[0].standardOutput)
            XCTAssertTrue(help.hasPrefix("OVERVIEW: \(spec.abstract) USAGE: photogrammetry \(spec.name)"), help)
            for option in spec.options {
                XCTAssertTrue(help.contains("--\(option.name)"), "\(spec.name): --\(option.name)")
                if let value = option.defaultValue {
                    XCTAssertTrue(help.contains("default: \(value)"), "\(spec.name) --\(option.name): default: \(value)")
                }
                if !option.allowedValues.isEmpty {
                    XCTAssertTrue(help.contains("values: " + option.allowedValues.joined(separator: ", ")), "\(spec.name) --\(option.name)")
                }
            }
            for argument in spec.arguments { XCTAssertTrue(help.contains(argument.name), "\(spec.name): \(argument.name)") }
        }
    }

    /// The defaults shown are the option structs' own.
    func testReconstructShowsTheDefaultsOfItsOptions() throws {
        let help = flat(try run(["reconstruct", "--help"]).standardOutput)
        let options = ReconstructionOptions()
        XCTAssertEqual(options.detail, .full)
        for fact in ["--detail LEVEL", "default: full", "--priors transforms.json|none", "--threads N",
                     "default: \(options.numThreads)", "--max-megapixels N", "default: 120", "values: auto, exhaustive"] {
            XCTAssertTrue(help.contains(fact), fact)
        }
        let texture = flat(try run(["texture", "-h"]).standardOutput)
        for fact in ["--poses SOURCE", "values: priors, sfm; default: priors", "--priors transforms.json"] {
            XCTAssertTrue(texture.contains(fact), fact)
        }
    }

    func testHelpWinsOverAWrongLine() throws {
        let outcome = try run(["reconstruct", "--bogus", "--threads", "0", "-h"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(outcome.standardOutput, CommandSpec.reconstruct.helpText + "\n")
        let value = try run(["reconstruct", "in", "out", "--threads", "-h"])
        XCTAssertEqual(value.status, 2)
        XCTAssertEqual(value.errorLines, ["photogrammetry: error: --threads -h: want an integer from 1 to 256"])
    }

    func testTheGlobalUsageListsEverySubcommand() throws {
        let outcomes = try [["help"], ["--help"], ["-h"]].map { try run($0) }
        for outcome in outcomes {
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            XCTAssertEqual(outcome.standardOutput, CommandSpec.globalHelp + "\n")
        }
        let usage = flat(outcomes[0].standardOutput)
        for spec in CommandSpec.all { XCTAssertTrue(usage.contains("\(spec.name) \(spec.abstract)"), spec.name) }
        for option in CommandSpec.globalOptions { XCTAssertTrue(usage.contains("--\(option.name)"), option.name) }
        // Nothing at all: the usage on standard error, exit 2.
        let bare = try run([])
        XCTAssertEqual(bare.status, 2)
        XCTAssertEqual(bare.standardError, CommandSpec.globalHelp + "\n")
        XCTAssertEqual(bare.standardOutput, "")
    }

    func testHelpOfWhatIsNotThere() throws {
        let unknown = try run(["help", "reconstrut"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.errorLines, ["photogrammetry: error: unknown command 'reconstrut'"])
        let two = try run(["help", "mesh", "render"])
        XCTAssertEqual(two.status, 2)
        XCTAssertEqual(two.errorLines, ["photogrammetry: error: help takes at most one SUBCOMMAND"])
    }

    func testMarkdownAndVersion() throws {
        let markdown = try run(["help", "--markdown"])
        XCTAssertEqual(markdown.status, 0, markdown.standardError)
        XCTAssertEqual(markdown.standardOutput, CommandSpec.markdown)
        for words in [["--version"], ["version"]] {
            let version = try run(words)
            XCTAssertEqual(version.status, 0)
            XCTAssertEqual(version.standardOutput, "photogrammetry \(Report.programVersion)\n")
            XCTAssertEqual(Report().version, Report.programVersion, "the report records the same version")
        }
    }
}
