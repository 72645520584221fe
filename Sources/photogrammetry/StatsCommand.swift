import Foundation
import PhotogrammetryKit
import PhotogrammetryIO

/// `photogrammetry stats MODEL_FILE... [--json]`: vertices, triangles, bounding-box size,
/// texture pages and file size of model files (ours and other tools').
enum StatsCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.stats.parse(arguments)
        guard !parsed.positionals.isEmpty else { throw ArgumentParser.Failure(description: "stats takes one or more MODEL_FILEs") }
        var all: [ModelStats] = []
        for path in parsed.positionals {
            do { all.append(try ModelStats.read(URL(fileURLWithPath: path))) } catch {
                throw MeshFailure("\(error)")
            }
        }
        if parsed.flags.contains("json") {
            print(try ModelStatsTable.json(all))
        } else {
            print(ModelStatsTable.text(all))
        }
    }
}
