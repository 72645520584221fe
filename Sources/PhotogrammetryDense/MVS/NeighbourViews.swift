import Foundation
import PhotogrammetryCore

/// What the dense stage needs per reference image, read from the sparse model: the source views
/// to match against, best first, the depth range to search and the sparse points it sees.
///
/// Sources are ranked as COLMAP and OpenMVS do: every 3D point the reference shares with a
/// candidate votes for it, weighted by how well the pair triangulates that point (a narrow angle
/// gives depth poorly, a very wide one sees a differently warped, partly occluded patch) and by
/// how alike the two resolutions are at the point (distance over focal length). The depth range
/// holds the reference's sparse points between robust percentiles, widened by a margin, as
/// COLMAP's `ComputeDepthRanges`.
public struct NeighbourViews: Sendable {
    /// How sources are picked and depth ranges set.
    public struct Options: Sendable, Equatable {
        /// Source views kept per reference, best first. Default 6.
        public var numSources = 6
        /// Shared points seen at a smaller triangulation angle (degrees) count less, by
        /// (angle / this)²: depth from a narrow baseline is poor. Default 5.
        public var minTriangulationAngleDeg = 5.0
        /// Up to this angle (degrees) a shared point counts fully. Default 40.
        public var fullWeightMaxAngleDeg = 40.0
        /// From ``fullWeightMaxAngleDeg`` the weight falls linearly to 0 at this angle (degrees):
        /// a patch seen from very different directions no longer correlates. Default 80.
        public var maxTriangulationAngleDeg = 80.0
        /// Resolution ratios (the larger ground footprint of a pixel over the smaller) up to this
        /// count fully; beyond, the weight is (this / ratio)². Default 1.6 (OpenMVS).
        public var maxResolutionRatio = 1.6
        /// A candidate scoring below this fraction of the best one is dropped: it shares few
        /// points at a useful angle, and every source costs PatchMatch as much as a good one.
        /// Default 0.1 (a ring camera 90° away scores about 0.07).
        public var minRelativeScore = 0.1
        /// Lower and upper percentiles of the reference's sparse point depths. Default 1 and 99.
        public var depthPercentiles = (lower: 0.01, upper: 0.99)
        /// The percentile range widened by this fraction at each end. Default 0.25 (COLMAP).
        public var depthMargin = 0.25

        public init() {}

        public static func == (a: Options, b: Options) -> Bool {
            a.numSources == b.numSources && a.minTriangulationAngleDeg == b.minTriangulationAngleDeg
                && a.fullWeightMaxAngleDeg == b.fullWeightMaxAngleDeg
                && a.maxTriangulationAngleDeg == b.maxTriangulationAngleDeg
                && a.maxResolutionRatio == b.maxResolutionRatio && a.minRelativeScore == b.minRelativeScore
                && a.depthPercentiles == b.depthPercentiles && a.depthMargin == b.depthMargin
        }

        /// Throws ``PipelineError/invalidOption(_:)`` for the first value out of range.
        public func validate() throws {
            guard numSources >= 1 && numSources <= 64 else {
                throw PipelineError.invalidOption("dense: numSourceViews must be in 1...64")
            }
            guard minTriangulationAngleDeg > 0, minTriangulationAngleDeg <= fullWeightMaxAngleDeg,
                  fullWeightMaxAngleDeg < maxTriangulationAngleDeg, maxTriangulationAngleDeg <= 180 else {
                throw PipelineError.invalidOption(
                    "dense: triangulation angles must satisfy 0 < min <= full-weight max < max <= 180")
            }
            guard maxResolutionRatio >= 1, (0..<1).contains(minRelativeScore) else {
                throw PipelineError.invalidOption("dense: resolution ratio must be >= 1 and relative score in [0, 1)")
            }
            guard 0 <= depthPercentiles.lower, depthPercentiles.lower < depthPercentiles.upper,
                  depthPercentiles.upper <= 1, depthMargin >= 0, depthMargin < 1 else {
                throw PipelineError.invalidOption("dense: depth percentiles must be 0 <= lower < upper <= 1, margin in [0, 1)")
            }
        }
    }

    /// One reference image's plan.
    public struct View: Sendable {
        public var imageID: ImageID
        /// Source images, best first (at most ``Options/numSources``).
        public var sources: [ImageID]
        /// The score of each source (sum of the shared points' weights).
        public var scores: [Double]
        /// The z-depth range to search; nil when the image sees no sparse point in front of it.
        public var depthRange: ClosedRange<Double>?
        /// The sparse points the image observes, in world coordinates (PatchMatch initialisation).
        public var pointsInWorld: [SIMD3<Double>]
    }

    /// One entry per registered image, in ascending id order.
    public var views: [View]

    /// The plan of one image, if it is registered.
    public subscript(id: ImageID) -> View? { views.first { $0.imageID == id } }

    /// Ranks sources and sets depth ranges for every registered image of `model`.
    public init(model: Reconstruction, options: Options = Options()) {
        let ids = model.registeredImageIDs
        var geometry: [ImageID: ViewGeometry] = [:]
        for id in ids {
            let image = model.images[id]!
            geometry[id] = ViewGeometry(pose: image.camFromWorld!,
                                        focal: model.cameras[image.cameraID]?.meanFocalLength ?? 1)
        }
        views = ids.map { id in
            Self.plan(id, model: model, geometry: geometry, options: options)
        }
    }

    /// Pose-derived quantities of one registered image.
    struct ViewGeometry {
        package var pose: Rigid3
        package var center: SIMD3<Double>
        package var focal: Double

        package init(pose: Rigid3, focal: Double) {
            self.pose = pose
            self.center = pose.centerInWorld
            self.focal = focal
        }

        /// The z-depth of a world point in this camera.
        @inline(__always) package func depth(_ x: SIMD3<Double>) -> Double { dot(pose.rotation.rows.2, x) + pose.translation.z }
    }

    /// The weight of one shared point seen at triangulation angle `angle` (degrees).
    static func angleWeight(_ angle: Double, _ options: Options) -> Double {
        if angle < options.minTriangulationAngleDeg {
            let r = angle / options.minTriangulationAngleDeg
            return r * r
        }
        if angle <= options.fullWeightMaxAngleDeg { return 1 }
        if angle >= options.maxTriangulationAngleDeg { return 0 }
        return (options.maxTriangulationAngleDeg - angle) / (options.maxTriangulationAngleDeg - options.fullWeightMaxAngleDeg)
    }

    /// The weight of one shared point whose pixel footprints in the two views are `a` and `b`.
    static func resolutionWeight(_ a: Double, _ b: Double, _ options: Options) -> Double {
        let ratio = max(a, b) / max(min(a, b), .leastNormalMagnitude)
        if ratio <= options.maxResolutionRatio { return 1 }
        let r = options.maxResolutionRatio / ratio
        return r * r
    }

    /// The plan of one reference image.
    static func plan(_ reference: ImageID, model: Reconstruction, geometry: [ImageID: ViewGeometry],
                     options: Options) -> View {
        let image = model.images[reference]!
        let ref = geometry[reference]!
        var scores: [ImageID: Double] = [:]
        var points: [SIMD3<Double>] = []
        var depths: [Double] = []
        // Keypoint order and track order: the sums are the same on every run.
        for case let pointID? in image.point3DIDs {
            guard let point = model.points3D[pointID] else { continue }
            let x = point.position
            let refDepth = ref.depth(x)
            guard refDepth > 0 else { continue }
            points.append(x)
            depths.append(refDepth)
            let refRay = normalize(ref.center - x)
            for element in point.track where element.imageID != reference {
                guard let other = geometry[element.imageID] else { continue }
                let otherDepth = other.depth(x)
                guard otherDepth > 0 else { continue }
                let cosine = min(1, max(-1, dot(refRay, normalize(other.center - x))))
                let angle = acos(cosine) * 180 / .pi
                let weight = angleWeight(angle, options)
                    * resolutionWeight(refDepth / ref.focal, otherDepth / other.focal, options)
                scores[element.imageID, default: 0] += weight
            }
        }
        if depths.count < 3, let camera = model.cameras[image.cameraID] {
            // Too few observed points: every sparse point inside the frame bounds the search.
            depths = model.points3D.keys.sorted().compactMap { id in
                let x = ref.pose.apply(model.points3D[id]!.position)
                guard let pixel = camera.project(x), pixel.x >= 0, pixel.y >= 0,
                      pixel.x < Double(camera.width), pixel.y < Double(camera.height) else { return nil }
                return x.z
            }
        }
        let best = scores.values.max() ?? 0
        let ranked = scores.filter { $0.value > 0 && $0.value >= options.minRelativeScore * best }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(options.numSources)
        return View(imageID: reference, sources: ranked.map(\.key), scores: ranked.map(\.value),
                    depthRange: depthRange(depths, options), pointsInWorld: points)
    }

    /// The robust depth range of positive depths: the percentiles widened by the margin.
    package static func depthRange(_ depths: [Double], _ options: Options) -> ClosedRange<Double>? {
        let sorted = depths.filter { $0 > 0 && $0.isFinite }.sorted()
        guard let last = sorted.last else { return nil }
        func percentile(_ p: Double) -> Double {
            sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count - 1)).rounded())))]
        }
        let low = percentile(options.depthPercentiles.lower) * (1 - options.depthMargin)
        let high = percentile(options.depthPercentiles.upper) * (1 + options.depthMargin)
        // A single depth (or all equal) still gives a range the search can move in.
        let lower = max(low, last * 1e-6)
        return lower...max(high, lower * (1 + 1e-3))
    }
}
