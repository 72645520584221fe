import Foundation
import PhotogrammetryCore

/// What the metric-scale stage found: a factor per model, from the depth images
/// of the capture's views, and the depth images that could not be used (with the reason).
public struct MetricScaling: Codable, Sendable, Equatable {
    /// Per model (`sparse/` first): its factor, nil when its views gave too few ratios.
    public var estimates: [MetricScale.Estimate?]
    /// Registered views with a usable depth image.
    public var imagesWithDepth: Int
    /// Registered views whose depth image could not be used, and why.
    public var unusable: [RejectedImage]

    /// `report.json`'s `scale_source` for the largest model: "lidar_depth" or "none".
    public var source: String { factor == nil ? "none" : "lidar_depth" }
    /// The largest model's factor (metres per model unit).
    public var factor: Double? { estimates.first??.factor }

    /// Why the largest model has no factor; nil when it has one.
    public var note: String? {
        guard factor == nil else { return nil }
        if imagesWithDepth == 0 {
            let reasons = Set(unusable.map(\.reason)).sorted()
            return "no usable depth image (\(unusable.count) unusable: \(reasons.joined(separator: "; ")))"
        }
        return "too few points with depth in \(imagesWithDepth) views with a depth image"
    }

    /// The factors for `models`, from the depth of the images `depth` finds for their registered
    /// views (`images` by name); nil when no registered view has a depth image at all, so a
    /// capture without depth makes the very outputs it made before.
    public static func measure(_ models: [Reconstruction], images: [CaptureImage], depth: CaptureDepth,
                               options: MetricScale.Options, threads: Int) -> MetricScaling? {
        let indexByName = Dictionary(images.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let reasons = ResultSlots<String>(count: images.count)
        let found = ResultSlots<Bool>(count: images.count)
        let estimates = models.map { model in
            MetricScale.estimate(model, depth: { image -> MetricDepthImage? in
                guard let index = indexByName[image.name] else { return nil }
                switch depth.load(images[index]) {
                case .none: return nil
                case .unusable(let reason):
                    reasons[index] = reason
                    return nil
                case .depth(let depthImage):
                    found[index] = true
                    return depthImage
                }
            }, options: options, threads: threads)
        }
        let unusable = zip(images, reasons.values).compactMap { image, reason in
            reason.map { RejectedImage(name: image.name, reason: $0) }
        }
        let withDepth = found.values.compactMap { $0 }.count
        guard withDepth > 0 || !unusable.isEmpty else { return nil }
        return MetricScaling(estimates: estimates, imagesWithDepth: withDepth, unusable: unusable)
    }

    /// `models` scaled by their factors (a model without one unchanged).
    public func apply(to models: [Reconstruction]) -> [Reconstruction] {
        models.enumerated().map { n, model in
            guard n < estimates.count, let estimate = estimates[n] else { return model }
            return model.scaled(by: estimate.factor)
        }
    }
}
