/// A rigid transform `y = rotation * x + translation`, named for the frames it maps between.
///
/// Poses follow COLMAP: an image stores `camFromWorld`, so `camFromWorld.apply(pointInWorld)` is
/// the point in camera coordinates, and the camera centre is `camFromWorld.inverse.translation`.
public struct Rigid3: Equatable, Sendable {
    /// The rotation part.
    public var rotation: Matrix3
    /// The translation part.
    public var translation: SIMD3<Double>

    /// Creates a transform from a rotation and a translation.
    public init(rotation: Matrix3 = .identity, translation: SIMD3<Double> = .zero) {
        self.rotation = rotation
        self.translation = translation
    }

    /// Creates a transform from an angle-axis rotation and a translation (the BA layout).
    public init(angleAxis: SIMD3<Double>, translation: SIMD3<Double>) {
        self.init(rotation: Rotation.matrix(angleAxis: angleAxis), translation: translation)
    }

    /// The identity transform.
    public static let identity = Rigid3()

    /// Maps a point.
    @inline(__always)
    public func apply(_ x: SIMD3<Double>) -> SIMD3<Double> { rotation * x + translation }

    /// The inverse transform.
    public var inverse: Rigid3 {
        let rt = rotation.transposed
        return Rigid3(rotation: rt, translation: -(rt * translation))
    }

    /// The composition `self ∘ other` (apply `other` first).
    public static func * (a: Rigid3, b: Rigid3) -> Rigid3 {
        Rigid3(rotation: a.rotation * b.rotation, translation: a.rotation * b.translation + a.translation)
    }

    /// For a `camFromWorld` pose: the camera centre in world coordinates.
    public var centerInWorld: SIMD3<Double> { -(rotation.transposed * translation) }

    /// For a `camFromWorld` pose: the viewing direction (camera +z) in world coordinates.
    public var viewingDirectionInWorld: SIMD3<Double> { rotation.rows.2 }

    /// The six numbers the bundle adjuster refines: angle-axis rotation, then translation.
    public var angleAxisAndTranslation: [Double] {
        let w = Rotation.angleAxis(rotation)
        return [w.x, w.y, w.z, translation.x, translation.y, translation.z]
    }
}
