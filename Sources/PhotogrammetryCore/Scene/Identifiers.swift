/// The identifier of a camera (intrinsics) in a reconstruction; COLMAP numbering starts at 1.
public struct CameraID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// The identifier of an image in a reconstruction; COLMAP numbering starts at 1.
public struct ImageID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// The identifier of a 3D point in a reconstruction; COLMAP numbering starts at 1.
public struct Point3DID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// One observation of a 3D point: an image and the index of a keypoint in it.
public struct TrackElement: Hashable, Sendable {
    public var imageID: ImageID
    public var point2DIndex: Int
    public init(imageID: ImageID, point2DIndex: Int) {
        self.imageID = imageID
        self.point2DIndex = point2DIndex
    }
}
