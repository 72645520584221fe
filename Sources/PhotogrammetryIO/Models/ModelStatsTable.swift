import Foundation

/// ``ModelStats`` as `photogrammetry stats` prints them: a table for people, JSON for programs.
public enum ModelStatsTable {
    /// One JSON object per file.
    package struct Row: Encodable {
        package var file: String
        package var format: String
        package var vertices: Int
        package var triangles: Int
        package var size: [Double]
        var sizeUnit: String
        package var texturePages: Int
        var textureSizes: [[Int]]
        var fileBytes: Int

        package enum CodingKeys: String, CodingKey {
            case file, format, vertices, triangles, size, sizeUnit = "size_unit", texturePages = "texture_pages"
            case textureSizes = "texture_sizes", fileBytes = "file_bytes"
        }

        package init(_ stats: ModelStats) {
            file = stats.file
            format = stats.format.rawValue
            vertices = stats.vertices
            triangles = stats.triangles
            size = [stats.size.x, stats.size.y, stats.size.z]
            sizeUnit = stats.sizeUnit
            texturePages = stats.textures.count
            textureSizes = stats.textures.map { [$0.width, $0.height] }
            fileBytes = stats.fileBytes
        }
    }

    /// A JSON array of one object per file.
    public static func json(_ all: [ModelStats]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(all.map(Row.init)), as: UTF8.self)
    }

    /// Aligned columns: file, format, vertices, triangles, size, textures, bytes.
    public static func text(_ all: [ModelStats]) -> String {
        var rows = [["file", "format", "vertices", "triangles", "size (x × y × z)", "textures", "bytes"]]
        for stats in all {
            let unit = " " + stats.sizeUnit
            let s = stats.size
            let size = [s.x, s.y, s.z].map { String(format: "%.4g", $0) }.joined(separator: " × ") + unit
            let textures = stats.textures.isEmpty ? "0"
                : "\(stats.textures.count): " + stats.textures.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
            rows.append([stats.file, stats.format.rawValue, "\(stats.vertices)", "\(stats.triangles)", size, textures,
                         "\(stats.fileBytes)"])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column >= 2 && column <= 3 || column == 6 ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
