import CVision
import PhotogrammetryCore

/// One of OpenCV's predefined square-marker dictionaries (ArUco's `DICT_4X4_50` ...,
/// AprilTag's `DICT_APRILTAG_36h11`): which bit patterns are markers, and their ids.
public struct MarkerDictionary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The core's index of the dictionary.
    public let index: Int32

    /// The dictionary `name` means: OpenCV's name, any case, with or without `DICT_`.
    /// - Throws: ``CVisionError`` (`invalidArgument`) naming `name` when no dictionary is called that.
    public init(name: String) throws {
        var index: Int32 = 0
        try check(cvis_marker_dictionary_find(name, &index))
        self.index = index
    }

    /// Every dictionary, in the core's order.
    public static var all: [MarkerDictionary] {
        (0..<cvis_marker_dictionary_count()).map { MarkerDictionary(index: $0) }
    }

    private init(index: Int32) {
        self.index = index
    }

    /// OpenCV's name: `DICT_4X4_50`.
    public var name: String { String(cString: cvis_marker_dictionary_name(index)) }

    /// How many markers it holds: ids run from 0 to one below this.
    public var markerCount: Int { Int(cvis_marker_dictionary_size(index)) }

    public var description: String { name }

    /// Stored by name, so that a stored value does not depend on the core's order.
    public init(from decoder: Decoder) throws {
        try self.init(name: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
