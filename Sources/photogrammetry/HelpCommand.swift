import Foundation
import PhotogrammetryKit

/// `photogrammetry help [SUBCOMMAND] [--markdown]`: the global usage, a subcommand's help (as
/// `SUBCOMMAND --help` prints it), or every subcommand's reference as Markdown (docs/cli.md).
enum HelpCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.helpCommand.parse(arguments)
        guard parsed.positionals.count <= 1 else {
            throw ArgumentParser.Failure(description: "help takes at most one SUBCOMMAND")
        }
        guard let name = parsed.positionals.first else {
            print(parsed.flags.contains("markdown") ? CommandSpec.markdown : CommandSpec.globalHelp,
                  terminator: parsed.flags.contains("markdown") ? "" : "\n")
            return
        }
        guard let spec = CommandSpec.named(name) else {
            throw ArgumentParser.Failure(description: "unknown command '\(name)'")
        }
        guard !parsed.flags.contains("markdown") else {
            throw ArgumentParser.Failure(description: "--markdown prints every subcommand: give no SUBCOMMAND")
        }
        print(spec.helpText)
    }
}
