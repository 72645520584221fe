import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

extension DenseReconstruction {
    /// The capture's sensor depth: each image's, read when needed (a HEIC depth item is decoded
    /// only then), and one key of all of them that changes when any changes.
    public struct SensorDepthSource: Sendable {
        /// Changes when any image's depth changes (a digest of them all).
        public var key: String
        /// The depth of the image with this name (metres, covering the upright photo, with
        /// ARKit's confidence when the capture has it), nil when it has none or none usable.
        public var depth: @Sendable (String) -> MetricDepthImage?

        public init(key: String, depth: @escaping @Sendable (String) -> MetricDepthImage?) {
            self.key = key
            self.depth = depth
        }
    }

    /// What the sensor depth step made: per workspace view, its sensor map and the factor from
    /// metres to the model's units (nil: none), and the views whose depth was refused, with why.
    struct SensorDepthMaps {
        var maps: [(url: URL, scale: Double)?]
        var entryKeys: [String]
        var refused: [RejectedImage] = []
        var viewsWithDepth: Int { maps.compactMap { $0 }.count }
    }

    /// A view's sensor depth is refused when, over the pixels both have, its median ratio to the
    /// photographs' depth is more than this off the capture's (another frame's depth, or a
    /// different lens), or the ratio spreads more than this around its median (misregistered).
    /// A phone's depth is good to 1–2 %, the photographs' to less: 5 % is well beyond both.
    static let sensorDisagreement = 0.05
    /// Pixels both maps must share before a view's own ratio is trusted; below it the capture's
    /// is used (a plain wall the photographs could not measure).
    static let sensorMinSharedPixels = 500
    /// ARKit's levels: medium and high are kept, low (edges, far and dark surfaces) dropped.
    static let sensorMinConfidence = 1

    /// Step 3b: every view with sensor depth gets a sensor depth map in the view's pixels, and
    /// its scale to the model from the pixels it shares with the photographs' maps (`measured`).
    func sensorDepthMaps(_ source: SensorDepthSource, views: [PreparedView], measured: [URL?],
                         workspace: MVSWorkspace, store: ManifestStore) throws -> SensorDepthMaps {
        let counter = ProgressCounter(stage: "dense: sensor depth", total: views.count, sink: progress)
        let tally = Tally(count: views.count)
        let made = ResultSlots<URL>(count: views.count)
        let ratios = ResultSlots<(median: Double, spread: Double, count: Int)>(count: views.count)
        let keys = views.map { view -> String in
            var hash = StableHash()
            hash.add("sensor")
            hash.add(source.key)
            hash.add(view.name)
            hash.add(view.entry.key)
            hash.add(Self.sensorMinConfidence)
            return hash.hex
        }
        // One view per thread: each is a single-threaded pass over its pixels.
        try runJobs(views.indices, concurrency: threads, counter: counter) { i in
            let view = views[i]
            guard let depth = source.depth(view.name), let image = model.images[view.id],
                  let camera = model.cameras[image.cameraID] else { return }
            let url = depthFolder.appendingPathComponent(view.flatName + ".sensor.cvdm")
            let entry = DenseManifest.Entry(key: keys[i], values: view.entry.values)
            try produce(url, entry: entry, store: store, tally: tally) {
                _ = try workspace.sensorDepthMap(view: i, depth: depth.metres, confidence: depth.confidence,
                                                 width: depth.width, height: depth.height,
                                                 minConfidence: Self.sensorMinConfidence, camera: camera, output: url)
            }
            made[i] = url
            if let measuredURL = measured[i] { ratios[i] = try MVSWorkspace.depthRatio(measured: measuredURL, sensor: url) }
        } failed: { i, error in
            tally.fail(views[i].name, "sensor depth unusable: \(error)")
        }

        var result = SensorDepthMaps(maps: Array(repeating: nil, count: views.count), entryKeys: keys,
                                     refused: tally.failures)
        let trusted = views.indices.compactMap { i -> Double? in
            guard let r = ratios[i], r.count >= Self.sensorMinSharedPixels, r.spread <= Self.sensorDisagreement else { return nil }
            return r.median
        }
        // The capture's factor: the median of the views'; without any view the photographs also
        // measured, the model's unit says it (metres: 1), else the depth cannot be placed.
        let captureScale: Double
        if !trusted.isEmpty {
            captureScale = trusted.median()!
        } else if lengthUnit == .metres {
            captureScale = 1
        } else {
            for (i, url) in made.values.enumerated() where url != nil {
                result.refused.append(RejectedImage(name: views[i].name, reason:
                    "sensor depth not used: no view shares enough pixels with the photographs' depth to scale it, "
                    + "and the model is not in metres"))
            }
            return result
        }
        for (i, url) in made.values.enumerated() {
            guard let url else { continue }
            if let r = ratios[i], r.count >= Self.sensorMinSharedPixels {
                let off = abs(r.median / captureScale - 1)
                guard off <= Self.sensorDisagreement, r.spread <= Self.sensorDisagreement else {
                    result.refused.append(RejectedImage(name: views[i].name, reason: String(
                        format: "sensor depth disagrees with the photographs: %.1f %% off the capture's scale, "
                            + "spread %.1f %% over %d pixels", off * 100, r.spread * 100, r.count)))
                    continue
                }
            }
            result.maps[i] = (url, captureScale)
        }
        return result
    }
}
