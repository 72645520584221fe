import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

extension SparseStage {
    /// The third pass: finer features (``FinerFeatures``) for the images the largest model leaves
    /// out and their partners, their pairs among themselves matched again, and SfM again; the
    /// result wins if its largest model holds more images.
    func finerFeaturesPass(_ current: [Reconstruction], matching: PairMatching.Result, setup: CameraSetup,
                           _ scene: ReconstructionScene, _ context: StageContext) throws -> [Reconstruction] {
        let count = scene.usable.images.count
        let registered = Set(current[0].registeredImageIDs.map { $0.rawValue - 1 })
        let leftOut = (0..<count).filter { !registered.contains($0) }
        let isSequence = options.mapper.isSequence(matching.graph)
        let chosen = options.finerFeatures.images(leftOut: leftOut, graph: matching.graph, isSequence: isSequence)
        guard !chosen.isEmpty else { return current }

        let start = DispatchTime.now()
        var features = scene.features
        let slots = ResultSlots<FeatureSet>(count: chosen.count)
        parallelFor(chosen.count, threads: context.threads) { n in
            let image = scene.usable.images[chosen[n]]
            let base = scene.features[chosen[n]]
            slots[n] = try? base.addingFinerFeatures(
                imageURL: image.url, maskURL: scene.masks?.maskURL(for: image), keepRect: scene.masks?.keepRect,
                options: options.finerFeatures.siftOptions(scene.siftOptions, base: base))
        }
        var added = 0
        for (n, i) in chosen.enumerated() {
            guard let finer = slots[n] else { continue }
            added += finer.count - features[i].count
            features[i] = finer
        }
        // Every pair among the chosen images that the first pass tried: the pairs the capture's
        // pair selection found worth matching, now with the finer keypoints on both sides.
        let isChosen = Set(chosen)
        let pairs = matching.tried.filter { isChosen.contains(Int($0.x)) && isChosen.contains(Int($0.y)) }.sorted {
            ($0.x, $0.y) < ($1.x, $1.y)
        }
        let rematched = try PairMatching.rematchWithFeatures(
            matching, pairs: pairs, features: features,
            calibration: setup.trustedCalibration(imageCount: count), options: options.matching,
            threads: context.threads, progress: context.progress)
        trace("finer features: images \(chosen), keypoints added \(added)")
        for edge in rematched.graph.edges where mapperTracing && isChosen.contains(edge.first) && isChosen.contains(edge.second) {
            let old = matching.graph.edges.first { $0.first == edge.first && $0.second == edge.second }?.matches.count ?? 0
            trace("finer features: pair \(edge.first)-\(edge.second) matches \(old) -> \(edge.matches.count)")
        }
        var retrySetup = setup
        let retry = try reconstruct(scene, features, rematched.graph, &retrySetup, context)
        let before = current[0].registeredImageIDs.count, after = retry[0].registeredImageIDs.count
        context.progress?.event(.finerFeatures, String(
            format: "finer features: %d left out, %d images (%d keypoints added), %d pairs matched again in %.1f s; "
                + "largest model %d images against %d%@", leftOut.count, chosen.count, added, pairs.count,
            PairMatching.seconds(since: start), after, before, after > before ? ", kept" : ", earlier pass kept"))
        return after > before ? retry : current
    }
}
