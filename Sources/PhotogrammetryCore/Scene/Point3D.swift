/// A triangulated point with its colour, mean reprojection error and track.
public struct Point3D: Sendable {
    public var position: SIMD3<Double>
    /// RGB, 0...255.
    public var color: SIMD3<UInt8>
    /// Mean reprojection error over the track in pixels (-1 when unknown).
    public var error: Double
    /// The observations of this point, at most one per image.
    public var track: [TrackElement]

    public init(position: SIMD3<Double>, color: SIMD3<UInt8> = SIMD3(128, 128, 128),
                error: Double = -1, track: [TrackElement] = []) {
        self.position = position
        self.color = color
        self.error = error
        self.track = track
    }
}
