import Foundation
import PhotogrammetryCore

/// Pairs from pose priors: each image with the images whose view overlaps its own, instead of
/// trying every pair or a walk's sequence.
extension PairSelection {
    /// One view as pair selection sees it: its prior pose and how wide it looks.
    public struct PriorView: Sendable {
        /// World-to-camera pose in the priors' frame.
        public var camFromWorld: Rigid3
        /// Half the image's width and height over the focal lengths: the tangents of the
        /// frustum's half-angles.
        public var halfTangents: SIMD2<Double>
        /// The intrinsics the frustum comes from (pixels); nil when unknown, and the pair's
        /// matching is then not guided by the priors.
        public var calibration: Matrix3?

        public init(camFromWorld: Rigid3, halfTangents: SIMD2<Double>, calibration: Matrix3? = nil) {
            self.camFromWorld = camFromWorld
            self.halfTangents = halfTangents
            self.calibration = calibration
        }

        /// Whether a world point lies inside the view's frustum (in front of it).
        package func sees(_ point: SIMD3<Double>) -> Bool {
            let p = camFromWorld.apply(point)
            guard p.z > 1e-9 else { return false }
            return abs(p.x / p.z) <= halfTangents.x && abs(p.y / p.z) <= halfTangents.y
        }
    }

    /// How much of each other view's frustum each view sees: `overlap[i][j]` is the share of
    /// points sampled in view i's frustum that view j sees, averaged with the share the other
    /// way round.
    ///
    /// The samples are a 5 x 5 grid of rays at four depths, 0.5, 1, 2 and 4 times the median
    /// distance of the camera centres from their centroid: the scene's depth is not known before
    /// matching, and for an orbit that distance is the object's, for a walk about the room's
    /// half-size; the spread of depths covers what a frame sees from near to far.
    public static func priorOverlap(_ views: [PriorView]) -> [[Double]] {
        let n = views.count
        guard n > 1 else { return Array(repeating: Array(repeating: 0, count: n), count: n) }
        let centres = views.map(\.camFromWorld.centerInWorld)
        let centroid = centres.reduce(SIMD3<Double>.zero, +) / Double(n)
        let scale = max(centres.map { length($0 - centroid) }.median() ?? 1, 1e-9)
        let grid = (0..<5).map { -1 + 0.5 * Double($0) }
        let samples: [[SIMD3<Double>]] = views.map { view in
            let camToWorld = view.camFromWorld.inverse
            var points: [SIMD3<Double>] = []
            for depth in [0.5, 1, 2, 4] {
                for u in grid {
                    for v in grid {
                        let ray = SIMD3(u * view.halfTangents.x, v * view.halfTangents.y, 1)
                        points.append(camToWorld.apply(depth * scale * ray / length(ray)))
                    }
                }
            }
            return points
        }
        var seen = Array(repeating: Array(repeating: 0.0, count: n), count: n)
        for i in 0..<n {
            for j in 0..<n where j != i {
                seen[i][j] = Double(samples[i].filter(views[j].sees).count) / Double(samples[i].count)
            }
        }
        var overlap = seen
        for i in 0..<n { for j in 0..<n { overlap[i][j] = (seen[i][j] + seen[j][i]) / 2 } }
        return overlap
    }

    /// Pairs from pose priors: every image with its `neighbours` most overlapping views
    /// (``priorOverlap(_:)`` above `minOverlap`), and every image without a prior with all others.
    /// - Parameter views: per image, its view, nil when it has no prior.
    public static func priorPairs(views: [PriorView?], neighbours: Int, minOverlap: Double) -> [SIMD2<Int32>] {
        let indexed = views.indices.filter { views[$0] != nil }
        let overlap = priorOverlap(indexed.map { views[$0]! })
        var pairs = PairSet()
        for (a, i) in indexed.enumerated() {
            let ranked = indexed.indices.filter { $0 != a && overlap[a][$0] > minOverlap }
                .sorted { (overlap[a][$0], -$0) > (overlap[a][$1], -$1) }
            for b in ranked.prefix(neighbours) { pairs.add(i, indexed[b]) }
        }
        for i in views.indices where views[i] == nil {
            for j in views.indices where j != i { pairs.add(i, j) }
        }
        return pairs.pairs.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }
}
