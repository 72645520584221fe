import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// What the sparse passes (stages 2-9) put into the scene, kept aside while they run again
/// without the automatic masks (``MaskCheckStage``), and put back if that run finds no model.
struct SparsePassState {
    var masks: MaskSource?
    var usable: Capture
    var features: [FeatureSet]
    var siftOptions: SIFTOptions
    var setup: CameraSetup?
    var matching: PairMatching.Result?
    var rematchedPairs: Int
    var finerFeatures: [FeatureSet]?
    var finerImages: [Int]
    var finerMatching: PairMatching.Result?
    var turntable: Bool
    var models: [Reconstruction]
    var report: Report

    /// The scene's sparse results as they are.
    init(of scene: ReconstructionScene) {
        masks = scene.masks
        usable = scene.usable
        features = scene.features
        siftOptions = scene.siftOptions
        setup = scene.setup
        matching = scene.matching
        rematchedPairs = scene.rematchedPairs
        finerFeatures = scene.finerFeatures
        finerImages = scene.finerImages
        finerMatching = scene.finerMatching
        turntable = scene.turntable
        models = scene.models
        report = scene.report
    }

    /// Puts these results back into `scene`.
    func restore(to scene: ReconstructionScene) {
        scene.masks = masks
        scene.usable = usable
        scene.features = features
        scene.siftOptions = siftOptions
        scene.setup = setup
        scene.matching = matching
        scene.rematchedPairs = rematchedPairs
        scene.finerFeatures = finerFeatures
        scene.finerImages = finerImages
        scene.finerMatching = finerMatching
        scene.turntable = turntable
        scene.models = models
        scene.report = report
    }

    /// The scene as ingest and segmentation left it, without masks: what the passes start from.
    static func clear(_ scene: ReconstructionScene) {
        let captured = Set(scene.capture.images.map(\.name))
        scene.masks = nil
        scene.usable = scene.capture
        scene.features = []
        scene.setup = nil
        scene.matching = nil
        scene.rematchedPairs = 0
        scene.finerFeatures = nil
        scene.finerImages = []
        scene.finerMatching = nil
        scene.turntable = false
        scene.models = []
        // The features stage rejects images of the capture (blurred, blank); ingest's rejections
        // are files it never took in.
        scene.report.rejectedImages.removeAll { captured.contains($0.name) }
        scene.report.masks = nil
        scene.report.turntableEvidence = nil
        scene.report.staticFeaturesDiscarded = 0
        // An even turn was posed under the masks: its model goes with them.
        scene.report.evenTurn = scene.report.evenTurn.map { $0 + "; set aside with the masks" }
    }
}
