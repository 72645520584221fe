import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge

/// The `photogrammetry` command: dispatches to a subcommand and turns failures into one line
/// on standard error and a non-zero exit code. What each subcommand takes, and every help
/// text, comes from its ``CommandSpec``.

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    FileHandle.standardError.write(Data((CommandSpec.globalHelp + "\n").utf8))
    exit(2)
}
arguments.removeFirst()

// SIGINT and SIGTERM end every command alike: its cleanups, one line, exit 130 or 143. Commands
// whose every file is written under a temporary name and renamed resume where they stopped.
Interruption.install()
if command == "reconstruct" || command == "match" {
    Interruption.advice = "run the same command again to resume from the checkpoints"
} else if command == "texture" {
    Interruption.advice = "its working files are removed (with --poses sfm the rerun resumes the SfM)"
}

do {
    if let spec = CommandSpec.named(command), spec.asksForHelp(arguments) {
        print(spec.helpText)
    } else {
        switch command {
        case "reconstruct": try ReconstructCommand.run(arguments)
        case "diagnose": try DiagnoseCommand.run(arguments)
        case "match": try MatchCommand.run(arguments)
        case "batch": try BatchCommand.run(arguments)
        case "batch-summary": try BatchSummaryCommand.run(arguments)
        case "compare": try CompareCommand.run(arguments)
        case "compare-cloud": try CompareCloudCommand.run(arguments)
        case "mesh": try MeshCommand.run(arguments)
        case "texture": try TextureCommand.run(arguments)
        case "stats": try StatsCommand.run(arguments)
        case "render": try RenderCommand.run(arguments)
        case "help": try HelpCommand.run(arguments)
        case "--version", "version": print("photogrammetry \(Report.programVersion)")
        case "--help", "-h": print(CommandSpec.globalHelp)
        default:
            throw ArgumentParser.Failure(description: "unknown command '\(command)'")
        }
    }
} catch let failure as ArgumentParser.Failure {
    // One line, as for every other failure (exit code 2 tells them apart): the usage is one
    // `--help` away, not a screenful that pushes the line that matters off the terminal.
    FileHandle.standardError.write(Data("photogrammetry: error: \("\(failure)".escapingControlCharacters)\n".utf8))
    exit(2)
} catch let failures as FailureLines {
    let lines = failures.lines.map { "photogrammetry: error: \($0.escapingControlCharacters)\n" }
    FileHandle.standardError.write(Data(lines.joined().utf8))
    exit(1)
} catch {
    // On a terminal, first clear the progress line a stage may have left.
    let clear = isatty(2) != 0 ? "\r\u{1B}[2K" : ""
    FileHandle.standardError.write(Data("\(clear)photogrammetry: error: \("\(error)".escapingControlCharacters)\n".utf8))
    exit(1)
}
