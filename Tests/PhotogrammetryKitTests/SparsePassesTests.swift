import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The passes after the first SfM (stages 5-9: re-matching, SfM again, finer features, their
/// pairs matched again, SfM again) as stages of their own: they run only while the largest model
/// leaves images out, each is timed, checkpointed and resumed, and a failed finer extraction is
/// a warning that leaves the image its features.
///
/// The capture is templeRing-12 and a thirteenth image of grey noise at the same size, which
/// has features but shares no verified match with the temple: it stays out of every model.
final class SparsePassesTests: XCTestCase {
    static let noise = "zz-noise.png"

    private func capture(in work: URL) throws -> URL {
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.copyItem(at: Repository.datasets.appendingPathComponent("templeRing-12/images"), to: capture)
        var generator = SeededGenerator(seed: 5)
        // 4-pixel blocks: blobs SIFT finds at its finest octaves.
        let blocks = (0..<(160 * 120)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var pixels = [UInt8](repeating: 0, count: 640 * 480)
        for y in 0..<480 {
            for x in 0..<640 { pixels[y * 640 + x] = blocks[(y / 4) * 160 + x / 4] }
        }
        try TestPNG.writeGrey(pixels, width: 640, height: 480, to: capture.appendingPathComponent(Self.noise))
        return capture
    }

    private func names(_ report: Report, _ test: (Report.Stage) -> Bool) -> [String] { report.stages.filter(test).map(\.name) }

    func testThePassesRunWhileImagesAreLeftOutAndResume() throws {
        let work = try makeBridgeTestDirectory(self)
        let input = try capture(in: work)
        let output = work.appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let events = EventRecorder()
        let first = try ReconstructionPipeline(input: input, output: output, options: options, progress: events).run()
        XCTAssertEqual(first.imagesRegistered, 12)
        XCTAssertEqual(first.unregisteredImages, [Self.noise])
        let passes = ["rematching", "finer-features", "finer-matching", "sparse-finer"]
        XCTAssertEqual(names(first) { passes.contains($0.name) && !$0.skipped }, passes, "each pass ran as its own stage")
        XCTAssertTrue(names(first) { passes.contains($0.name) }.allSatisfy { name in
            first.stages.first { $0.name == name }?.peakMemoryMB ?? 0 > 0
        }, "with its own peak memory")
        XCTAssertEqual(events.codes.filter { $0 == PipelineEvent.finerFeatures.code }.count, 2,
                       "finer features: what was chosen, then which SfM was kept")
        XCTAssertFalse(events.codes.contains(PipelineEvent.finerFeaturesFailed.code))
        let finerFiles = try FileManager.default.contentsOfDirectory(atPath: OutputLayout(folder: output).checkpoint("finer-features").path)
        XCTAssertFalse(finerFiles.isEmpty)
        XCTAssertTrue(finerFiles.allSatisfy { $0.hasSuffix(".sift") })
        let model = try Data(contentsOf: output.appendingPathComponent("sparse/points3D.txt"))

        // The same command: every pass resumed, the same model.
        let second = try ReconstructionPipeline(input: input, output: output, options: options, progress: nil).run()
        XCTAssertEqual(names(second, \.resumed), ["segmentation", "features", "matching", "sparse"] + passes + ["metric-scale", "upright", "export"])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("sparse/points3D.txt")), model)

        // The finer feature files lost: that stage runs again, the later ones keep their keys.
        try FileManager.default.removeItem(at: OutputLayout(folder: output).checkpoint("finer-features"))
        let third = try ReconstructionPipeline(input: input, output: output, options: options, progress: nil).run()
        XCTAssertEqual(names(third, \.resumed), ["segmentation", "features", "matching", "sparse", "rematching", "finer-matching", "sparse-finer",
                                                "metric-scale", "upright", "export"])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("sparse/points3D.txt")), model)

        // Finer features turned off: their three stages are skipped, the model is the first SfM's.
        options.finerFeatures.enabled = false
        let fourth = try ReconstructionPipeline(input: input, output: output, options: options, progress: nil).run()
        XCTAssertEqual(names(fourth, \.skipped), ["sparse-rematched", "finer-features", "finer-matching", "sparse-finer",
                                                 "even-turn", "mask-check", "prior-alignment", "dense", "surface", "model"])
        XCTAssertEqual(names(fourth, \.resumed), ["segmentation", "features", "matching", "sparse", "rematching"])
        XCTAssertEqual(fourth.imagesRegistered, 12)
    }

    /// `photogrammetry match --transitive` runs the second matching pass as the same stage,
    /// through the same frame: timed, checkpointed, resumed; without `--transitive` it is skipped.
    func testMatchOnlyRunsTheSecondPassAsItsStage() throws {
        let work = try makeBridgeTestDirectory(self)
        let output = work.appendingPathComponent("out")
        let input = Repository.datasets.appendingPathComponent("templeRing-12")
        let first = try ReconstructionPipeline(input: input, output: output, options: ReconstructionOptions(), progress: nil)
            .runMatching(transitive: true)
        XCTAssertEqual(first.stages.map(\.name), ["ingest", "segmentation", "features", "matching", "rematching"])
        let rematching = try XCTUnwrap(first.stages.last)
        XCTAssertFalse(rematching.skipped)
        XCTAssertGreaterThan(rematching.peakMemoryMB ?? 0, 0)
        XCTAssertTrue(Set(first.rematched.map { SIMD2($0[0], $0[1]) }).isSubset(of: Set(first.tried.map { SIMD2($0[0], $0[1]) })))
        let second = try ReconstructionPipeline(input: input, output: output, options: ReconstructionOptions(), progress: nil)
            .runMatching(transitive: true)
        XCTAssertEqual(second.stages.filter(\.resumed).map(\.name), ["segmentation", "features", "matching", "rematching"])
        XCTAssertEqual(second.tried, first.tried)
        let plain = try ReconstructionPipeline(input: input, output: output, options: ReconstructionOptions(), progress: nil)
            .runMatching()
        XCTAssertEqual(plain.stages.filter(\.skipped).map(\.name), ["rematching"])
        XCTAssertEqual(plain.rematched, [])
    }

    /// An image whose finer extraction fails keeps its features, and the run is warned with the
    /// image as the subject.
    func testAFailedFinerExtractionIsAWarning() throws {
        let work = try makeBridgeTestDirectory(self)
        let input = try capture(in: work)
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let events = SubjectRecorder()
        let pipeline = ReconstructionPipeline(input: input, output: work.appendingPathComponent("out"), options: options,
                                              progress: events)
        try pipeline.start()
        try pipeline.run(IngestStage(options: options.ingestStage))
        try pipeline.run(FeatureStage(options: options.featureStage))
        try pipeline.run(MatchingStage(options: options.matchingStage))
        try pipeline.run(SparseStage(options: options.sparseStage))
        let scene = pipeline.scene
        let noise = try XCTUnwrap(scene.usable.images.firstIndex { $0.name == Self.noise })
        // The image is gone after its features were made (as a file replaced under a run).
        scene.usable.images[noise].url = work.appendingPathComponent("gone.png")
        try pipeline.run(FinerFeaturesStage(options: options.finerFeaturesStage))
        XCTAssertEqual(pipeline.report.stages.last?.name, "finer-features")
        XCTAssertEqual(pipeline.report.stages.last?.skipped, false)
        XCTAssertEqual(events.subjects(PipelineEvent.finerFeaturesFailed), [Self.noise])
        let finer = try XCTUnwrap(scene.finerFeatures)
        XCTAssertEqual(finer[noise].count, scene.features[noise].count, "the image keeps its features")
        XCTAssertTrue(scene.finerImages.contains(noise))
    }
}

/// The subjects of the events a run sends, by event.
final class SubjectRecorder: ProgressSink, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [(PipelineEvent, String?)] = []

    func subjects(_ event: PipelineEvent) -> [String?] {
        lock.lock()
        defer { lock.unlock() }
        return recorded.filter { $0.0 == event }.map(\.1)
    }

    func update(stage: String, done: Int, total: Int) -> Bool { true }
    func finished(stage: String, seconds: Double) {}
    func event(_ event: PipelineEvent, _ message: String, subject: String?) {
        lock.lock()
        recorded.append((event, subject))
        lock.unlock()
    }
}
