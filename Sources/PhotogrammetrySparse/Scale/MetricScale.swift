import Foundation
import PhotogrammetryCore

/// The factor that takes a model to metres, from depth images of its registered views.
///
/// Every observation of a 3D point in a view with a depth image gives one ratio: the depth
/// image at the keypoint (metres) over the point's z in that camera (model units). A point's
/// ratio is the median over its observations; the factor is the median of the points' ratios
/// after those further than ``Options/outlierSigmas`` robust sigmas (1.4826 MAD) from the median
/// are rejected. The spread is half the 16-84 % range of the kept points' ratios, as a fraction
/// of the factor: the scatter of one point's ratio (the factor's own uncertainty is about that
/// over the square root of ``Estimate/points``).
public enum MetricScale {
    /// How ratios are taken and kept.
    public struct Options: Sendable, Equatable {
        /// A keypoint whose 3x3 depth neighbourhood varies by more than this fraction of its
        /// nearest depth sits on an occlusion edge and gives no ratio. Default 0.05.
        public var maxRelativeJump = 0.05
        /// Points further than this many robust sigmas (1.4826 MAD) from the median ratio are
        /// outliers. Default 3.
        public var outlierSigmas = 3.0
        /// Fewer points with a ratio than this give no factor. Default 20.
        public var minPoints = 20

        public init() {}

        /// Throws the first field out of range.
        public func validate() throws {
            guard maxRelativeJump > 0, maxRelativeJump.isFinite else {
                throw PipelineError.invalidInput("metric scale: maxRelativeJump must be above 0, not \(maxRelativeJump)")
            }
            guard outlierSigmas > 0, outlierSigmas.isFinite else {
                throw PipelineError.invalidInput("metric scale: outlierSigmas must be above 0, not \(outlierSigmas)")
            }
            guard minPoints >= 1 else { throw PipelineError.invalidInput("metric scale: minPoints must be at least 1, not \(minPoints)") }
        }
    }

    /// A factor and how well the points agree on it.
    public struct Estimate: Codable, Sendable, Equatable {
        /// Metres per model unit: multiply the model by it.
        public var factor: Double
        /// Half the 16-84 % range of the kept points' ratios over the factor.
        public var spread: Double
        /// Points kept (with a ratio, not outliers).
        public var points: Int
        /// Points rejected as outliers.
        public var outliers: Int
        /// Observations that gave a ratio.
        public var observations: Int
        /// Views whose depth image gave at least one ratio.
        public var images: Int
    }

    /// The factor from each point's ratios (one array per point, one ratio per observation); nil
    /// with fewer than ``Options/minPoints`` points.
    public static func estimate(pointRatios: [[Double]], images: Int = 0, options: Options = Options()) -> Estimate? {
        let perPoint = pointRatios.compactMap { ratios -> Double? in
            let valid = ratios.filter { $0 > 0 && $0.isFinite }
            return valid.isEmpty ? nil : median(valid)
        }
        guard perPoint.count >= options.minPoints else { return nil }
        let centre = median(perPoint)
        let sigma = 1.4826 * median(perPoint.map { abs($0 - centre) })
        let kept = sigma > 0 ? perPoint.filter { abs($0 - centre) <= options.outlierSigmas * sigma } : perPoint.filter { $0 == centre }
        guard kept.count >= options.minPoints else { return nil }
        let sorted = kept.sorted()
        let factor = median(sorted)
        let spread = (quantile(sorted, 0.84) - quantile(sorted, 0.16)) / 2 / factor
        return Estimate(factor: factor, spread: spread, points: kept.count, outliers: perPoint.count - kept.count,
                        observations: pointRatios.reduce(0) { $0 + $1.count }, images: images)
    }

    /// The factor for `model` from the depth images of its registered views (`depth(image)`,
    /// nil for a view without one); views are read one at a time, on `threads` threads.
    public static func estimate(_ model: Reconstruction, depth: (Image) -> MetricDepthImage?,
                                options: Options = Options(), threads: Int = 1) -> Estimate? {
        let ids = model.registeredImageIDs
        let slots = ResultSlots<[(Point3DID, Double)]>(count: ids.count)
        parallelFor(ids.count, threads: threads) { i in
            guard let image = model.images[ids[i]], let pose = image.camFromWorld,
                  let camera = model.cameras[image.cameraID], let depthImage = depth(image),
                  depthImage.matches(imageWidth: camera.width, imageHeight: camera.height) else { return }
            slots[i] = Self.ratios(image, pose: pose, camera: camera, depth: depthImage, model: model, options: options)
        }
        var byPoint: [Point3DID: [Double]] = [:]
        var images = 0
        for case let found? in slots.values where !found.isEmpty {
            images += 1
            for (id, ratio) in found { byPoint[id, default: []].append(ratio) }
        }
        // In id order, so that the same model gives the same figures.
        let pointRatios = byPoint.keys.sorted().map { byPoint[$0]! }
        return estimate(pointRatios: pointRatios, images: images, options: options)
    }

    /// One view's ratios: depth at each keypoint that observes a point, over the point's z.
    package static func ratios(_ image: Image, pose: Rigid3, camera: Camera, depth: MetricDepthImage, model: Reconstruction,
                       options: Options) -> [(Point3DID, Double)] {
        var out: [(Point3DID, Double)] = []
        for (index, pointID) in image.point3DIDs.enumerated() {
            guard let pointID, let point = model.points3D[pointID] else { continue }
            let z = pose.apply(point.position).z
            guard z > 0, let metres = depth.depth(at: image.points2D[index], imageWidth: camera.width,
                                                  imageHeight: camera.height, maxRelativeJump: options.maxRelativeJump)
            else { continue }
            out.append((pointID, metres / z))
        }
        return out
    }

    package static func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) }

    /// The `q` quantile of sorted values, linear between neighbours.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let at = q * Double(sorted.count - 1)
        let lo = Int(at.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - Double(lo))
    }
}
