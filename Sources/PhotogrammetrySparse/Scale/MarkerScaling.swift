import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// What the metric-scale stage found from printed markers: a factor per model, and the largest
/// model's markers (what `--known-distance` between two markers measures).
public struct MarkerScaling: Codable, Sendable, Equatable {
    /// The markers looked for.
    public var spec: MarkerSpec
    /// Per model (`sparse/` first): its factor, nil when too few of its markers were located.
    public var estimates: [MetricScale.Estimate?]
    /// The largest model's located markers, by id.
    public var markers: [MarkerScale.MeasuredMarker]
    /// Registered views in which at least one marker was detected.
    public var imagesWithMarkers: Int
    /// Distinct marker ids detected (of a given size) in any registered view.
    public var idsDetected: Int
    /// (view, id) left out because the id was seen more than once in the view.
    public var ambiguous: Int

    /// The largest model's factor (metres per model unit).
    public var factor: Double? { estimates.first??.factor }

    /// Why the largest model has no factor; nil when it has one.
    public var note: String? {
        guard factor == nil else { return nil }
        if idsDetected == 0 {
            return "no \(spec.dictionary.name) marker of a given size found in the registered views"
                + (ambiguous > 0 ? " (\(ambiguous) seen twice in one view, left out)" : "")
        }
        return "\(idsDetected) markers found in \(imagesWithMarkers) views, \(markers.count) located "
            + "(a marker needs all four corners seen in two views from different directions)"
    }

    /// The markers of `spec` in the registered views of `models` (photos from `images` by name),
    /// located in each model, and each model's factor.
    public static func measure(_ models: [Reconstruction], images: [CaptureImage], spec: MarkerSpec,
                               options: MarkerScale.Options, threads: Int) throws -> MarkerScaling {
        let (detections, ambiguous) = MarkerScale.detect(in: images, registeredIn: models, spec: spec, options: options, threads: threads)
        var estimates: [MetricScale.Estimate?] = [], largest: [MarkerScale.MeasuredMarker] = []
        for (n, model) in models.enumerated() {
            let markers = try MarkerScale.locate(detections, in: model, spec: spec, options: options)
            let views = model.registeredImageIDs.filter { id in model.images[id].map { detections[$0.name] != nil } ?? false }.count
            estimates.append(MarkerScale.estimate(markers, images: views, options: options))
            if n == 0 { largest = markers }
        }
        return MarkerScaling(spec: spec, estimates: estimates, markers: largest, imagesWithMarkers: detections.count,
                             idsDetected: Set(detections.values.flatMap { $0.map(\.id) }).count, ambiguous: ambiguous)
    }

    /// `models` scaled by their factors (a model without one unchanged).
    public func apply(to models: [Reconstruction]) -> [Reconstruction] {
        models.enumerated().map { n, model in
            guard n < estimates.count, let estimate = estimates[n] else { return model }
            return model.scaled(by: estimate.factor)
        }
    }
}
