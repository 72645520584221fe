/// An axis-aligned box, scene units.
public struct BoundingBox: Sendable, Equatable, Codable {
    public var min: SIMD3<Double>
    public var max: SIMD3<Double>

    public init(min: SIMD3<Double>, max: SIMD3<Double>) {
        self.min = min
        self.max = max
    }

    /// The box around `points`, nil when there are none.
    public init?(around points: [SIMD3<Float>]) {
        guard let first = points.first else { return nil }
        var low = SIMD3<Double>(first), high = low
        for point in points {
            let p = SIMD3<Double>(point)
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        self.init(min: low, max: high)
    }

    /// Edge lengths along x, y and z.
    public var size: SIMD3<Double> { max - min }

    /// The box grown by `fraction` of its size on every side.
    public func expanded(by fraction: Double) -> BoundingBox {
        let margin = size * fraction
        return BoundingBox(min: min - margin, max: max + margin)
    }
}
