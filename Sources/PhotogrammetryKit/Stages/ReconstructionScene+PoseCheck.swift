import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

extension ReconstructionScene {
    /// What the pose check reads: the usable images in capture order, the verified pairs of the
    /// graph the largest model was built on (the finer-features graph when the model's images
    /// hold those features), their measured poses and how much of each the model explains.
    func poseCheckInput(threads: Int) -> PoseCheck.Input? {
        let model = self.model
        guard !model.registeredImageIDs.isEmpty else { return nil }
        let images = usable.images
        // The model's image i + 1 is usable image i (SparseStage); the keypoints must be the graph's.
        func fits(_ features: [FeatureSet]) -> Bool {
            features.count == images.count && model.images.values.allSatisfy { image in
                let i = Int(image.id.rawValue) - 1
                return i >= 0 && i < images.count && images[i].name == image.name && features[i].count == image.points2D.count
            }
        }
        let graph: MatchGraph?
        if let finer = finerFeatures, let matching = finerMatching, fits(finer) {
            graph = matching.graph
        } else if let matching = matching, fits(features) {
            graph = matching.graph
        } else {
            graph = nil
        }
        let imageIDs = images.indices.map { i in model.images[ImageID(i + 1)].map(\.id) }
        let pairs = graph.map { PoseCheck.measuredPairs($0, model: model, imageIDs: imageIDs, threads: threads) } ?? []
        return PoseCheck.Input(order: images.map(\.name).sorted(), pairs: pairs, turntable: turntable,
                               ordered: graph.map { MapperOptions().isSequence($0) } ?? false,
                               links: graph.map { PoseCheck.links($0, names: images.map(\.name)) } ?? [],
                               support: graph.map { PoseCheck.pairSupport($0, model: model, imageIDs: imageIDs) } ?? [])
    }
}
