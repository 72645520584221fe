import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetrySparse
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Automatic masks judged by their poses: a failed pose check sets them aside and the sparse
/// passes run again without them; if those make no model, the masked results stand.
final class MaskCheckTests: XCTestCase {
    private let context = StageContext(threads: 1, progress: nil, layout: OutputLayout(folder: URL(fileURLWithPath: "/tmp/pg-mask-check")),
                                       input: URL(fileURLWithPath: "/tmp/pg-mask-check-input"))
    private let masks = MaskSource.directory(URL(fileURLWithPath: "/tmp/pg-mask-check/masks"))

    /// A scene after the sparse passes under automatic masks: one image rejected by features,
    /// one by ingest (a file it never took in), a model of one image.
    private func maskedScene() -> ReconstructionScene {
        let scene = ReconstructionScene()
        let root = URL(fileURLWithPath: "/tmp/pg-mask-check-input")
        let images = ["a.jpg", "b.jpg", "c.jpg"].map { CaptureImage(name: $0, url: root.appendingPathComponent($0), width: 64, height: 48, exif: MetricScaleTests.noExif) }
        scene.capture = Capture(imageRoot: root, root: root, images: images, rejected: [])
        scene.usable = Capture(imageRoot: root, root: root, images: Array(images.prefix(2)), rejected: [])
        scene.masks = masks
        scene.turntable = true
        scene.rematchedPairs = 3
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .simplePinhole, width: 64, height: 48, params: [50, 32, 24]))
        scene.models = [model]
        scene.report.automaticMasks = AutomaticMasksSummary(used: true, reason: "a fixed camera", frames: 3, folder: "masks")
        scene.report.rejectedImages = [RejectedImage(name: "notes.txt", reason: "not an image"),
                                       RejectedImage(name: "c.jpg", reason: "blurred")]
        scene.report.staticFeaturesDiscarded = 12
        return scene
    }

    func testAPassingCheckKeepsTheMasks() throws {
        let scene = maskedScene()
        XCTAssertTrue(MaskCheckStage().hasWork(scene))
        try MaskCheckStage().apply(.init(passed: true, reason: ""), to: scene, context)
        XCTAssertEqual(scene.masks, masks)
        XCTAssertFalse(scene.automaticMasksRejected)
        XCTAssertFalse(UnmaskedRerun(FeatureStage(options: .init())).hasWork(scene), "no rerun after a passed check")
        XCTAssertEqual(scene.report.automaticMasks?.used, true)
        XCTAssertEqual(scene.report.automaticMasks?.rejectedByPoseCheck, false)
    }

    func testAFailedCheckSetsTheMasksAsideAndTheRerunStartsClean() throws {
        let scene = maskedScene()
        try MaskCheckStage().apply(.init(passed: false, reason: "the turn wobbles off one axis"), to: scene, context)
        XCTAssertNil(scene.masks)
        XCTAssertTrue(scene.automaticMasksRejected)
        XCTAssertTrue(UnmaskedRerun(FeatureStage(options: .init())).hasWork(scene))
        XCTAssertEqual(scene.models.count, 0)
        XCTAssertFalse(scene.turntable)
        XCTAssertEqual(scene.rematchedPairs, 0)
        XCTAssertEqual(scene.usable.images.count, 3, "every captured image is tried again")
        XCTAssertEqual(scene.report.rejectedImages.map(\.name), ["notes.txt"], "ingest's rejections stay, features' go")
        XCTAssertEqual(scene.report.staticFeaturesDiscarded, 0)
        let summary = try XCTUnwrap(scene.report.automaticMasks)
        XCTAssertFalse(summary.used)
        XCTAssertEqual(summary.rejectedByPoseCheck, true)
        XCTAssertTrue(summary.reason.contains("the turn wobbles off one axis"), summary.reason)
        XCTAssertTrue(summary.reason.contains("ran again without them"), summary.reason)
    }

    func testWithoutAModelUnmaskedTheMaskedResultsStand() throws {
        let scene = maskedScene()
        try MaskCheckStage().apply(.init(passed: false, reason: "frames keep too few points"), to: scene, context)
        let rerun = UnmaskedRerun(NoInitialPairStage())
        let output = try rerun.run(scene, context)
        XCTAssertNil(output, "no initial pair without masks is not the run's failure")
        try rerun.apply(output, to: scene, context)
        XCTAssertEqual(scene.masks, masks)
        XCTAssertFalse(scene.automaticMasksRejected)
        XCTAssertFalse(UnmaskedRerun(SparseStage(options: .init())).hasWork(scene), "the rest of the rerun has nothing to do")
        XCTAssertEqual(scene.models.count, 1)
        XCTAssertTrue(scene.turntable)
        XCTAssertEqual(scene.report.rejectedImages.map(\.name), ["notes.txt", "c.jpg"])
        let summary = try XCTUnwrap(scene.report.automaticMasks)
        XCTAssertTrue(summary.used)
        XCTAssertEqual(summary.rejectedByPoseCheck, true)
        XCTAssertTrue(summary.reason.contains("frames keep too few points"), summary.reason)
        XCTAssertTrue(summary.reason.contains("stand"), summary.reason)
    }

    /// A busy backdrop's features must not hide a plain subject: with the masks set aside, the
    /// texture the diagnosis judges is still what the masks held.
    func testTheTextureJudgedIsTheSubjectsWhenTheMasksAreSetAside() throws {
        let capture = Repository.root.appendingPathComponent("Datasets/turntable-lowtex-16")
        let frames = ["0000", "0004", "0008"]
        let whole = try frames.map { try FeatureSet.extract(imageURL: capture.appendingPathComponent("images/\($0).jpg")) }
        let inside = try frames.prefix(2).map {
            try FeatureSet.extract(imageURL: capture.appendingPathComponent("images/\($0).jpg"),
                                   maskURL: capture.appendingPathComponent("true_masks_object/\($0).png"))
        }
        let scene = maskedScene()
        scene.features = inside
        try MaskCheckStage().apply(.init(passed: false, reason: "frames keep too few points"), to: scene, context)
        scene.features = whole  // the rerun's features: every captured image, whole frames
        let images = scene.describingModels(scene.report).images
        XCTAssertEqual(images.map(\.name), ["a.jpg", "b.jpg", "c.jpg"])
        for n in 0..<2 {
            XCTAssertLessThan(inside[n].countAtBaseThreshold * 4, whole[n].countAtBaseThreshold, "the backdrop is busy")
            XCTAssertEqual(images[n].featuresAtDefaultContrast, inside[n].countAtBaseThreshold)
            XCTAssertEqual(images[n].features, whole[n].count, "the features kept are the rerun's")
        }
        XCTAssertEqual(images[2].featuresAtDefaultContrast, whole[2].countAtBaseThreshold, "no masked features: its own")
        XCTAssertEqual(TextureSummary.measure(images)?.verdict, "low")
    }

    func testTheRerunHasItsOwnNamesAndKeys() {
        XCTAssertEqual(UnmaskedRerun<FeatureStage>.name, "features-unmasked")
        XCTAssertNotEqual(UnmaskedRerun(FeatureStage(options: .init())).key(after: "k"), FeatureStage(options: .init()).key(after: "k"))
    }

    func testAUsersMasksAreNotJudged() {
        let scene = maskedScene()
        scene.report.automaticMasks = AutomaticMasksSummary(used: false, reason: "the run's own masks are used")
        XCTAssertFalse(MaskCheckStage().hasWork(scene))
    }
}

/// A sparse stage whose images make no initial pair.
private struct NoInitialPairStage: CheckpointedStage {
    struct Options: StageOptions {
        var keyText: String { "" }
        func validate() throws {}
    }

    static let name = "no-initial-pair"
    var options = Options()

    func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Int { throw PipelineError.noInitialPair }
    func apply(_ output: Int, to scene: ReconstructionScene, _ context: StageContext) throws {}
}
