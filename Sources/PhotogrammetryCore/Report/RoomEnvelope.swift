/// The box of a room seen from inside, its floor, ceiling and four walls, as the dense stage
/// found it among every view's matches (the planar-prior pass fills bare walls, floors and
/// ceilings from it), less the corners walled off from the room (an L): its extents and its
/// floor, in the report's length unit.
public struct RoomEnvelope: Codable, Equatable, Sendable {
    /// Floor to ceiling: along the model's up (+Y).
    public var height: Double
    /// Across the floor: the longer extent, then the shorter.
    public var length: Double
    public var width: Double
    /// The floor's area: length × width, less the corners walled off.
    public var floorArea: Double
    /// How many of the box's corners are walled off from the room (0 for a box, 1 for an L).
    public var notches: Int
    /// The area of its floor, walls and ceiling that the views matched nothing on, closed on their
    /// planes for meshing: unseen (the floor under the furniture and across the middle, the
    /// ceiling overhead), or seen bare and unmatched. The dense cloud does not hold it. Nil in
    /// reports from before the envelope was closed.
    public var closedArea: Double?

    public init(height: Double, length: Double, width: Double, floorArea: Double, notches: Int,
                closedArea: Double? = nil) {
        self.height = height
        self.length = length
        self.width = width
        self.floorArea = floorArea
        self.notches = notches
        self.closedArea = closedArea
    }

    enum CodingKeys: String, CodingKey {
        case height, length, width, floorArea = "floor_area", notches, closedArea = "closed_area"
    }
}
