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

    /// The smallest box holding this one and `other`.
    public func union(_ other: BoundingBox) -> BoundingBox {
        BoundingBox(min: pointwiseMin(min, other.min), max: pointwiseMax(max, other.max))
    }

    /// The part of this box inside `other`; nil when they do not overlap.
    public func intersection(_ other: BoundingBox) -> BoundingBox? {
        let low = pointwiseMax(min, other.min), high = pointwiseMin(max, other.max)
        guard all(low .<= high) else { return nil }
        return BoundingBox(min: low, max: high)
    }

    /// The box grown by `fraction` of its size on every side.
    public func expanded(by fraction: Double) -> BoundingBox {
        let margin = size * fraction
        return BoundingBox(min: min - margin, max: max + margin)
    }
}

extension BoundingBox {
    /// The box from the `lower` to the `upper` quantile of the points along each axis: the
    /// extent of most of them, a few stray ones left out. Nil for no points.
    public init?(quantilesOf points: [SIMD3<Double>], lower: Double, upper: Double) {
        guard !points.isEmpty else { return nil }
        var low = SIMD3<Double>(), high = SIMD3<Double>()
        for axis in 0..<3 {
            let values = points.map { $0[axis] }.sorted()
            let last = Double(values.count - 1)
            low[axis] = values[Int((lower * last).rounded())]
            high[axis] = values[Int((upper * last).rounded())]
        }
        self.init(min: low, max: high)
    }
}
