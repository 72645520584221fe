import Foundation

/// The model file formats the exporters write and ``ModelStats`` reads.
public enum ModelFormat: String, CaseIterable, Sendable, Codable {
    /// A zip of a USD layer (binary through usd-core, else text) and its textures, for AR Quick Look.
    case usdz
    /// glTF 2.0 binary.
    case glb
    /// Wavefront OBJ with its `.mtl`.
    case obj
    /// Binary PLY with colours.
    case ply
    /// Binary STL (geometry only).
    case stl

    /// The format a file's extension names (case-insensitive), or nil.
    public init?(fileExtension: String) {
        self.init(rawValue: fileExtension.lowercased())
    }

    /// The format of `url`'s extension, or nil.
    public init?(url: URL) {
        self.init(fileExtension: url.pathExtension)
    }

    /// The formats a run writes into an OUTPUT folder (DESIGN.md's layout).
    public static let folderDefaults: [ModelFormat] = [.usdz, .glb, .obj]
}
