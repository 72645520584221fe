/// The box of a room seen from inside, its floor, ceiling and four walls, as the dense stage
/// found it among every view's matches (the planar-prior pass fills bare walls, floors and
/// ceilings from it): its extents, in the report's length unit.
public struct RoomEnvelope: Codable, Equatable, Sendable {
    /// Floor to ceiling: along the model's up (+Y).
    public var height: Double
    /// Across the floor: the longer extent, then the shorter.
    public var length: Double
    public var width: Double

    public init(height: Double, length: Double, width: Double) {
        self.height = height
        self.length = length
        self.width = width
    }
}
