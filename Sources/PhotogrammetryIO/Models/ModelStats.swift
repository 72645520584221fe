import Foundation
import PhotogrammetryCore

/// What a model file holds: vertices, triangles, bounding-box size, texture pages and the file's
/// size, read from our exports and from other tools' files in the same formats
/// (`photogrammetry stats`).
public struct ModelStats: Sendable, Equatable {
    /// The file, as given.
    public var file: String
    public var format: ModelFormat
    public var vertices: Int
    public var triangles: Int
    /// The box around the vertices in the file's units: USD's through their prims' transforms
    /// with the stage made Y up (read by usd-core; the text reader without it takes points as
    /// stored), glTF's as stored (node transforms are not applied).
    public var bounds: BoundingBox?
    /// Metres per unit when the file says its unit (USD's `metersPerUnit`; glTF is metres; an
    /// OBJ, PLY or STL file of ours whose comment says `lengthUnit: metres`), nil when it says
    /// the unit is unknown (``LengthUnit``) or says nothing.
    public var metersPerUnit: Double?
    /// The texture images' sizes in pixels (0 x 0 when an image's size cannot be read).
    public var textures: [TextureSize]
    /// The file's size in bytes (the OBJ alone, without its `.mtl` and images).
    public var fileBytes: Int

    /// One texture page's size.
    public struct TextureSize: Sendable, Equatable, Codable {
        public var width: Int
        public var height: Int
    }

    /// The bounding box's edge lengths in metres when the unit is known, else in file units.
    public var size: SIMD3<Double> { (bounds?.size ?? .zero) * (metersPerUnit ?? 1) }

    /// The unit of ``size`` as `stats` prints it: "m", or "unknown" (the file's own units, of
    /// no known length).
    public var sizeUnit: String { metersPerUnit == nil ? LengthUnit.unknown.rawValue : "m" }

    /// Reads `url`, the format from its extension (`.usdz`, `.usd`, `.usda`, `.usdc`, `.glb`,
    /// `.obj`, `.ply`, `.stl`).
    /// - Throws: ``ModelStatsError`` naming the file: not a regular file, unreadable, unknown
    ///   extension, malformed (the checks of ``ModelReader``), what usd-core refuses, or, without
    ///   usd-core, a binary layer.
    public static func read(_ url: URL) throws -> ModelStats {
        let name = url.path
        let data = try ModelReader.contents(of: url)
        let ext = url.pathExtension.lowercased()
        var stats: ModelStats
        switch ext {
        case "usdz", "usda", "usd", "usdc":
            if let stage = try ModelReader.usdStage(url, data: data) {
                stats = try self.stats(stage, file: name)
            } else if ext == "usdz" {
                stats = try usdz(data, name: name)
            } else {
                stats = try usda(data, name: name, textures: [])
            }
        case "glb": stats = try glb(data, name: name, folder: url.deletingLastPathComponent())
        case "obj": stats = try obj(data, name: name, folder: url.deletingLastPathComponent())
        case "ply": stats = try ply(url, data: data)
        case "stl": stats = try stl(data, name: name)
        default:
            throw ModelStatsError(message: "\(name): unknown model format '.\(ext)' (want usdz, usda, glb, obj, ply, stl)")
        }
        stats.fileBytes = data.count
        // Finite coordinates in a finite unit can still overflow a double (3e38 units of 1e300 m).
        guard [stats.size.x, stats.size.y, stats.size.z].allSatisfy(\.isFinite) else {
            throw ModelStatsError(message: "\(name): the bounding box's size overflows (\(stats.bounds?.size ?? .zero) units of \(stats.metersPerUnit ?? 1) m)")
        }
        return stats
    }

    /// Width and height of a PNG or JPEG image from its header, nil when neither.
    static func imageSize(_ data: Data) -> TextureSize? {
        let bytes = [UInt8](data.prefix(65_536))
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            return TextureSize(width: be32(16), height: be32(20))
        }
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 9 < bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return TextureSize(width: Int(bytes[at + 7]) << 8 | Int(bytes[at + 8]),
                                   height: Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]))
            }
            at += 2 + length
        }
        return nil
    }
}

/// A model file that cannot be read, as one line naming it.
public struct ModelStatsError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
