import Foundation
import PhotogrammetryKit
import PhotogrammetryIO

/// `photogrammetry stats MODEL_FILE... [--json]`: vertices, triangles, bounding-box size,
/// texture pages and file size of model files (ours and other tools').
///
/// A file that cannot be read does not hide the others: the readable ones are printed, then one
/// error line per unreadable file, and the exit code is 1.
enum StatsCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.stats.parse(arguments)
        guard !parsed.positionals.isEmpty else { throw ArgumentParser.Failure(description: "stats takes one or more MODEL_FILEs") }
        var all: [ModelStats] = []
        var failures: [String] = []
        for path in parsed.positionals {
            do { all.append(try ModelStats.read(URL(fileURLWithPath: path))) } catch {
                failures.append("\(error)")
            }
        }
        if !all.isEmpty {
            if parsed.flags.contains("json") {
                print(try ModelStatsTable.json(all))
            } else {
                print(ModelStatsTable.text(all))
            }
        }
        if !failures.isEmpty { throw FailureLines(failures) }
    }
}
