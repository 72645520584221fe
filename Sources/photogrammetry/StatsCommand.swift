import Foundation
import PhotogrammetryKit
import PhotogrammetryIO

/// `photogrammetry stats MODEL_FILE... [--json]`: vertices, triangles, bounding-box size,
/// texture pages and file size of model files (ours and other tools').
enum StatsCommand {
    static let help = """
    usage: photogrammetry stats MODEL_FILE... [--json]

    For each file (.usdz with a text USDA layer, .usda, .glb, .obj, .ply, .stl): vertices,
    triangles, the bounding box's size (metres when the format says: USD's metersPerUnit,
    glTF; else the file's units), texture pages and their sizes, and the file's size. A table,
    or with --json an array of objects (file, format, vertices, triangles, size [x, y, z],
    size_unit, texture_pages, texture_sizes [[w, h]], file_bytes).
    """

    static func run(_ arguments: [String]) throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(help)
            return
        }
        let parsed = try ArgumentParser(valueOptions: [], flags: ["json"]).parse(arguments)
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
