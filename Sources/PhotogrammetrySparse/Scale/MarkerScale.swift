import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The factor that takes a model to metres, from printed markers of known size seen in its
/// registered views.
///
/// Each view's photo is searched at full resolution (``MarkerDetector``); an id seen twice in one
/// photo is ambiguous there and dropped from it. Each corner of each marker (id, corner 0-3) is
/// triangulated from the views that see it: their pixels undistorted with the view's camera to
/// normalised rays, then the ``Triangulator`` (DLT, Gauss-Newton, views beyond
/// ``Options/maxReprojectionErrorPx`` dropped, ``Options/minAngleDegrees`` between rays). Views
/// that see the marker's plane at a grazing angle (beyond ``Options/maxViewAngleDegrees`` from its
/// normal, where the corners are least precise) are then dropped and the corners triangulated
/// again. A marker whose four corners are found gives four ratios, its printed side over each
/// edge's length (metres per model unit), and ``MetricScale/estimate(pointRatios:images:options:)``
/// makes the factor of them with one ratio list per marker: the median over markers, markers
/// beyond ``Options/outlierSigmas`` robust sigmas out.
///
/// Markers must be rigid with what the model holds: on a turntable's plate they turn with the
/// object, and the model is in the plate's frame.
public enum MarkerScale {
    /// How markers are found and measured.
    public struct Options: Sendable, Equatable {
        /// How corners are detected (``MarkerDetector/Options``' defaults).
        public var detection = MarkerDetector.Options()
        /// A view whose corner lies further than this from the triangulated corner's projection
        /// is dropped for that corner, in pixels. Default 4 (a registered view's pose is good to
        /// about a pixel; a corner refined to sub-pixel is better).
        public var maxReprojectionErrorPx = 4.0
        /// The widest angle between two rays to a corner must reach this, in degrees. Default 2.
        public var minAngleDegrees = 2.0
        /// Views that see a marker further than this from its normal are not used for it, in
        /// degrees. Default 75.
        public var maxViewAngleDegrees = 75.0
        /// Markers whose ratio is further than this many robust sigmas (1.4826 MAD) from the
        /// median are outliers. Default 3.
        public var outlierSigmas = 3.0
        /// Fewer measured markers than this give no factor. Default 1.
        public var minMarkers = 1

        public init() {}

        /// Throws the first field out of range.
        public func validate() throws {
            for (name, value, range) in [("maxReprojectionErrorPx", maxReprojectionErrorPx, 0.01...1000),
                                         ("minAngleDegrees", minAngleDegrees, 0...90),
                                         ("maxViewAngleDegrees", maxViewAngleDegrees, 1...90),
                                         ("outlierSigmas", outlierSigmas, 0.1...100)] where !range.contains(value) {
                throw PipelineError.invalidOption("marker scale: \(name) must be in \(range), not \(value)")
            }
            guard minMarkers >= 1 else { throw PipelineError.invalidOption("marker scale: minMarkers must be at least 1, not \(minMarkers)") }
        }
    }

    /// A marker located in a model.
    public struct MeasuredMarker: Codable, Sendable, Equatable {
        public var id: Int
        /// The four corners in model units, in the marker's order (top-left, top-right,
        /// bottom-right, bottom-left as printed).
        public var corners: [SIMD3<Double>]
        /// Views that saw it and were used.
        public var views: Int
        /// Its printed side, metres.
        public var sizeMetres: Double

        /// The mean of its corners.
        public var centre: SIMD3<Double> { corners.reduce(.zero, +) / 4 }
        /// Its four edges' lengths, model units, from corner 0 round.
        public var edgeLengths: [Double] { (0..<4).map { length(corners[($0 + 1) % 4] - corners[$0]) } }
        /// Its four ratios: printed side over each edge (metres per model unit).
        public var ratios: [Double] { edgeLengths.map { sizeMetres / $0 } }
    }

    /// The markers one photo shows (an id seen twice there left out).
    public typealias Detections = [String: [DetectedMarker]]

    /// The markers of `spec` in each of `images` (by name) that some model registered, on `threads`
    /// threads; a photo that cannot be decoded now (it could at ingest) gives none.
    /// - Returns: the detections by image name, and how many (image, id) were dropped as ambiguous.
    public static func detect(in images: [CaptureImage], registeredIn models: [Reconstruction], spec: MarkerSpec,
                              options: Options, threads: Int) -> (detections: Detections, ambiguous: Int) {
        let registered = Set(models.flatMap { model in model.registeredImageIDs.compactMap { model.images[$0]?.name } })
        let wanted = images.filter { registered.contains($0.name) }
        let found = ResultSlots<[DetectedMarker]>(count: wanted.count)
        parallelFor(wanted.count, threads: threads) { i in
            found[i] = (try? MarkerDetector.detect(in: wanted[i].url, dictionary: spec.dictionary, options: options.detection)) ?? []
        }
        var detections: Detections = [:]
        var ambiguous = 0
        for (image, markers) in zip(wanted, found.values) {
            let counts = Dictionary(grouping: markers ?? [], by: \.id)
            ambiguous += counts.values.filter { $0.count > 1 }.count
            let unique = counts.values.filter { $0.count == 1 }.map { $0[0] }.filter { spec.size(of: $0.id) != nil }
            if !unique.isEmpty { detections[image.name] = unique.sorted { $0.id < $1.id } }
        }
        return (detections, ambiguous)
    }

    /// The markers of `detections` located in `model`: those whose four corners triangulate.
    public static func locate(_ detections: Detections, in model: Reconstruction, spec: MarkerSpec,
                              options: Options) throws -> [MeasuredMarker] {
        // Each registered view with markers: its pose and its markers' corners as normalised rays.
        var poses: [Rigid3] = [], centres: [SIMD3<Double>] = [], focals: [Double] = []
        var rays: [Int: [(view: Int, corners: [SIMD2<Double>])]] = [:]
        for id in model.registeredImageIDs {
            guard let image = model.images[id], let pose = image.camFromWorld, let camera = model.cameras[image.cameraID],
                  let markers = detections[image.name] else { continue }
            let view = poses.count
            poses.append(pose)
            centres.append(pose.centerInWorld)
            focals.append(camera.meanFocalLength)
            let normalized = try camera.unproject(pixels: markers.flatMap(\.corners))
            for (n, marker) in markers.enumerated() {
                rays[marker.id, default: []].append((view, Array(normalized[(4 * n)..<(4 * n + 4)])))
            }
        }
        guard !poses.isEmpty else { return [] }
        var triangulation = Triangulator.Options()
        triangulation.minAngleDegrees = options.minAngleDegrees
        triangulation.maxError = options.maxReprojectionErrorPx / MetricScale.median(focals)
        let ids = rays.keys.sorted()

        // The corners of every marker from the views in `use` (all, then those not grazing).
        func triangulate(_ use: (Int, Int) -> Bool) throws -> [Int: (corners: [SIMD3<Double>], views: Int)] {
            var batch = Triangulator.TrackBatch()
            for id in ids {
                for corner in 0..<4 {
                    for seen in rays[id]! where use(id, seen.view) { batch.append(poseIndex: seen.view, normalized: seen.corners[corner]) }
                    batch.endTrack()
                }
            }
            let results = try Triangulator.triangulate(batch, poses: poses, options: triangulation)
            var located: [Int: (corners: [SIMD3<Double>], views: Int)] = [:]
            for (n, id) in ids.enumerated() {
                let corners = results[(4 * n)..<(4 * n + 4)]
                guard corners.allSatisfy({ $0.point != nil }) else { continue }
                let views = corners.map { $0.inliers.filter { $0 }.count }.min() ?? 0
                located[id] = (corners.map { $0.point! }, views)
            }
            return located
        }

        let first = try triangulate { _, _ in true }
        // A view more than maxViewAngleDegrees off a marker's normal sees it edge-on.
        let cosLimit = cos(options.maxViewAngleDegrees * .pi / 180)
        var grazing: Set<[Int]> = []
        for (id, found) in first {
            let c = found.corners
            let normal = normalize(cross(c[2] - c[0], c[3] - c[1]))
            let centre = c.reduce(.zero, +) / 4
            for seen in rays[id]! where abs(dot(normal, normalize(centres[seen.view] - centre))) < cosLimit {
                grazing.insert([id, seen.view])
            }
        }
        let located = grazing.isEmpty ? first : try triangulate { id, view in !grazing.contains([id, view]) }
        return located.keys.sorted().compactMap { id in
            guard let size = spec.size(of: id), let found = located[id] else { return nil }
            return MeasuredMarker(id: id, corners: found.corners, views: found.views, sizeMetres: size)
        }
    }

    /// The factor from located markers: one ratio list (four edges) per marker; nil with fewer
    /// than ``Options/minMarkers`` markers.
    public static func estimate(_ markers: [MeasuredMarker], images: Int, options: Options) -> MetricScale.Estimate? {
        var scale = MetricScale.Options()
        scale.minPoints = options.minMarkers
        scale.outlierSigmas = options.outlierSigmas
        return MetricScale.estimate(pointRatios: markers.map(\.ratios), images: images, options: scale)
    }
}
