import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The scale the user stated (`--scale`, `--known-distance`) as a factor for the largest model.
public struct UserScaling: Codable, Sendable, Equatable {
    /// What the user said.
    public var scale: UserScale
    /// Metres per model unit; nil when a known distance's points could not be located.
    public var factor: Double?
    /// The model units between a known distance's two points.
    public var modelDistance: Double?
    /// Why there is no factor; nil when there is one.
    public var note: String?

    /// `report.json`'s `scale_source`: "user" (`--scale`) or "known_distance".
    public var source: String {
        if case .factor = scale { return "user" }
        return "known_distance"
    }

    /// Picked points' views further than this from the triangulated point are dropped, in pixels:
    /// a point picked by hand in a viewer is good to a few pixels.
    public static let pickedPointMaxErrorPx = 10.0

    /// The factor `scale` gives `model`: as stated, or the known distance over the model distance
    /// between its points (markers from `markers`, the largest model's; picked points triangulated
    /// from the registered views that show them).
    /// - Throws: ``PipelineError/invalidOption(_:)`` for a picked view naming no image of `images`.
    public static func measure(_ scale: UserScale, model: Reconstruction, markers: [MarkerScale.MeasuredMarker]?,
                               images: [CaptureImage]) throws -> UserScaling {
        guard case .knownDistance(let distance) = scale else {
            guard case .factor(let factor) = scale else { preconditionFailure("a user scale is a factor or a distance") }
            return UserScaling(scale: scale, factor: factor)
        }
        let names = Set(images.map(\.name))
        var points: [SIMD3<Double>] = []
        for (n, endpoint) in [distance.from, distance.to].enumerated() {
            switch endpoint {
            case .marker(let id):
                guard let markers else { return UserScaling(scale: scale, note: "no markers were looked for") }
                guard let marker = markers.first(where: { $0.id == id }) else {
                    return UserScaling(scale: scale, note: "marker \(id) was not located (all four corners in two views)")
                }
                points.append(marker.centre)
            case .picked(let views):
                for view in views where !names.contains(view.image) {
                    throw PipelineError.invalidOption("--known-distance: no image \(view.image) among the capture's usable images")
                }
                guard let point = try triangulate(views, in: model) else {
                    return UserScaling(scale: scale, note: "point \(n + 1) could not be triangulated (two registered views within "
                                       + "\(Int(pickedPointMaxErrorPx)) px needed)")
                }
                points.append(point)
            }
        }
        let modelDistance = length(points[1] - points[0])
        guard modelDistance > 0 else { return UserScaling(scale: scale, modelDistance: 0, note: "the two points coincide") }
        return UserScaling(scale: scale, factor: distance.metres / modelDistance, modelDistance: modelDistance)
    }

    /// A picked point from the registered views among `views`; nil when fewer than two agree.
    static func triangulate(_ views: [KnownDistance.PickedView], in model: Reconstruction) throws -> SIMD3<Double>? {
        let byName = Dictionary(model.images.values.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var track: [Triangulator.Observation] = [], poses: [Rigid3] = [], focals: [Double] = []
        for view in views {
            guard let image = byName[view.image], let pose = image.camFromWorld, let camera = model.cameras[image.cameraID] else { continue }
            track.append(Triangulator.Observation(poseIndex: poses.count, normalized: try camera.unproject(pixels: [view.pixel])[0]))
            poses.append(pose)
            focals.append(camera.meanFocalLength)
        }
        guard track.count >= 2 else { return nil }
        var options = Triangulator.Options()
        options.minAngleDegrees = 1
        options.maxError = pickedPointMaxErrorPx / MetricScale.median(focals)
        return try Triangulator.triangulate([track], poses: poses, options: options).first?.point
    }

    /// One line for the log.
    public var summary: String {
        switch scale {
        case .factor: return "as --scale gives it"
        case .knownDistance(let distance):
            return "from the known distance (\(distance.summary): \(String(format: "%.6g", modelDistance ?? 0)) model units)"
        }
    }
}
