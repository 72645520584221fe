import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The stage contract: keys chain (an option changes its stage's key and those after it only),
/// skip flags hold, checkpoints are used under their key alone, leftovers go.
final class StageContractTests: XCTestCase {
    /// The names of the pipeline's stages, in order.
    private let names = ReconstructionPipeline.stages(ReconstructionOptions()).map(\.name)

    /// The keys of every stage of the pipeline's list, chained from a fixed input key.
    private func keys(_ options: ReconstructionOptions) -> [String: String] {
        var key = "capture"
        var keys: [String: String] = [:]
        for stage in ReconstructionPipeline.stages(options) {
            key = stage.key(key)
            keys[stage.name] = key
        }
        return keys
    }

    /// The stages whose keys differ between `a` and `b`, in list order.
    private func changed(_ a: ReconstructionOptions, _ b: ReconstructionOptions) -> [String] {
        let ka = keys(a), kb = keys(b)
        return names.filter { ka[$0] != kb[$0] }
    }

    /// `name` and every stage after it.
    private func from(_ name: String) -> [String] { Array(names[names.firstIndex(of: name)!...]) }

    func testTheListIsNumberedAndNamedOnce() {
        XCTAssertEqual(names, ["ingest", "segmentation", "features", "matching", "sparse", "rematching", "sparse-rematched", "finer-features",
                               "finer-matching", "sparse-finer", "even-turn", "mask-check", "features-unmasked", "matching-unmasked",
                               "sparse-unmasked", "rematching-unmasked", "sparse-rematched-unmasked", "finer-features-unmasked",
                               "finer-matching-unmasked", "sparse-finer-unmasked", "prior-alignment", "diagnostics", "metric-scale", "upright",
                               "export", "dense", "surface", "model", "report"])
        XCTAssertEqual(Set(names).count, names.count, "a name is a checkpoint file: unique")
    }

    func testAnOptionChangesItsStageAndLaterStagesOnly() {
        let base = ReconstructionOptions()
        XCTAssertEqual(changed(base, base), [], "keys are the same in every call")
        var autoMask = base
        XCTAssertTrue(base.automaticMasks.enabled, "automatic masks are on by default")
        autoMask.automaticMasks.enabled = false
        XCTAssertEqual(changed(base, autoMask), from("segmentation"))
        var mapper = base
        mapper.mapper.initMinNumPoints = 99
        XCTAssertEqual(changed(base, mapper), from("sparse"))
        var detail = base
        detail.detail = .preview
        XCTAssertEqual(changed(base, detail), from("dense"), "the level sets the working size, cap and page")
        var sift = base
        sift.sift.maxFeatures = 4000
        XCTAssertEqual(changed(base, sift), from("features"))
        var pairs = base
        pairs.matching.pairs.retrievalNeighbours = 10
        XCTAssertEqual(changed(base, pairs), from("matching"))
        var seed = base
        seed.seed = 7
        XCTAssertEqual(changed(base, seed), from("sparse"))
        var finer = base
        finer.finerFeatures.partners = 2
        XCTAssertEqual(changed(base, finer), from("finer-features"))
        var surface = base
        surface.surface.regionMargin = 0.2
        XCTAssertEqual(changed(base, surface), from("surface"))
        var texture = base
        texture.texture.smoothness = 2
        XCTAssertEqual(changed(base, texture), from("model"))
        var limits = base
        limits.decodeLimits.maxMegapixels = 50
        XCTAssertEqual(changed(base, limits), names, "the decode limit decides which images ingest admits")
        var keyframes = base
        keyframes.keyframes.target = 50
        XCTAssertEqual(changed(base, keyframes), names)
        var maskA = base, maskB = base
        maskA.mask = .given(.directory(URL(fileURLWithPath: "/masks/a")))
        maskB.mask = .given(.directory(URL(fileURLWithPath: "/masks/b")))
        XCTAssertEqual(changed(maskA, maskB), names, "another masks folder is another run")
        var threads = base
        threads.numThreads = 7
        XCTAssertEqual(changed(base, threads), [], "threads change no result, so no key")
        var sparseOnly = base
        sparseOnly.sparseOnly = true
        XCTAssertEqual(changed(base, sparseOnly), [], "a skip flag is not an option of any stage")
        var noMesh = base
        noMesh.noMesh = true
        XCTAssertEqual(changed(base, noMesh), [])
        XCTAssertNotEqual(FeatureStage(options: base.featureStage).key(after: "a"),
                          FeatureStage(options: base.featureStage).key(after: "b"), "the input's key is chained")
        XCTAssertTrue(FeatureStage(options: base.featureStage).key(after: "a") != FeatureStage(options: base.featureStage)
            .key(after: "a", digest: "depth"), "a digest of what the stage reads is hashed in")
    }

    /// The batch's fingerprint is made of the same list: every stage's key and skip flag, so an
    /// option that changes a stage's key, or skips it, changes the fingerprint; threads do not.
    func testTheFingerprintIsTheStageKeysAndSkipFlags() {
        let base = ReconstructionOptions()
        let words = base.fingerprintText.split(separator: " ").map(String.init)
        XCTAssertEqual(words.map { String($0.prefix { $0 != "=" }) }, names, "one word per stage, in list order")
        let stages = ReconstructionPipeline.stages(base)
        for (word, stage) in zip(words, stages) {
            XCTAssertEqual(word, "\(stage.name)=" + (stage.skip ? "skipped" : stage.key("")))
        }
        func differs(_ change: (inout ReconstructionOptions) -> Void) -> [String] {
            var other = base
            change(&other)
            XCTAssertNotEqual(other.fingerprint, base.fingerprint)
            let a = base.fingerprintText.split(separator: " "), b = other.fingerprintText.split(separator: " ")
            return zip(a, b).filter { $0 != $1 }.map { String($0.0.prefix { $0 != "=" }) }
        }
        XCTAssertEqual(differs { $0.noMesh = true }, ["surface", "model"], "--no-mesh skips the mesh stages")
        XCTAssertEqual(differs { $0.sparseOnly = true }, ["dense", "surface", "model"])
        XCTAssertEqual(differs { $0.detail = .preview }, ["dense", "surface", "model"])
        XCTAssertEqual(differs { $0.finerFeatures.enabled = false }, ["finer-features", "finer-features-unmasked"])
        XCTAssertEqual(differs { $0.matching.rematch.transitive = false; $0.matching.rematch.spatial = false },
                       ["matching", "rematching", "finer-matching", "matching-unmasked", "rematching-unmasked", "finer-matching-unmasked"],
                       "matching options are keyed where they are used")
        XCTAssertEqual(differs { $0.priors = .disabled }, ["ingest", "prior-alignment"])
        XCTAssertEqual(differs { $0.seed = 3 }, ["sparse", "sparse-rematched", "sparse-finer", "even-turn", "sparse-unmasked", "sparse-rematched-unmasked",
                                               "sparse-finer-unmasked", "prior-alignment", "dense"])
        var threads = base
        threads.numThreads = 7
        XCTAssertEqual(threads.fingerprintText, base.fingerprintText)
    }

    /// The checkpoint format is part of every key: a bump reruns every stage.
    func testTheCheckpointFormatIsInEveryKey() {
        var hash = StableHash()
        hash.add("capture")
        hash.add(FeatureStage.name)
        hash.add(FeatureStage(options: ReconstructionOptions().featureStage).options.keyText)
        hash.add("checkpoint-format=\(StageKey.checkpointFormat)")
        XCTAssertEqual(FeatureStage(options: ReconstructionOptions().featureStage).key(after: "capture"), hash.hex)
    }

    /// A stage that counts its runs and whose output is its option.
    struct CountingStage: CheckpointedStage {
        struct Options: StageOptions {
            var value = 1
            var keyText: String { "value=\(value)" }
            func validate() throws {}
        }

        static let name = "counting"
        var options = Options()
        let runs: Counter
        /// What ``hasWork(_:)`` says.
        var work = true

        final class Counter {
            var count = 0
            var applied: [Int] = []
        }

        func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Int {
            runs.count += 1
            return options.value
        }

        func apply(_ output: Int, to scene: ReconstructionScene, _ context: StageContext) throws {
            runs.applied.append(output)
        }

        func hasWork(_ scene: ReconstructionScene) -> Bool { work }
    }

    func testSkipFlagAndCheckpointReuse() throws {
        let output = try temporaryDirectory()
        let counter = CountingStage.Counter()
        func pipeline() -> ReconstructionPipeline {
            ReconstructionPipeline(input: output, output: output, options: ReconstructionOptions(), progress: nil)
        }
        let first = pipeline()
        try first.run(CountingStage(runs: counter), skip: true)
        XCTAssertEqual(counter.count, 0, "a skipped stage does not run")
        XCTAssertEqual(first.report.stages.map(\.name), ["counting"])
        XCTAssertTrue(first.report.stages[0].skipped)

        var idle = CountingStage(runs: counter)
        idle.work = false
        try first.run(idle)
        XCTAssertEqual(counter.count, 0, "a stage the scene gives nothing to do does not run")
        XCTAssertEqual(first.report.stages.map(\.skipped), [true, true])
        XCTAssertEqual(first.scene.key, "", "and leaves the key as it was")

        try first.run(CountingStage(runs: counter))
        XCTAssertEqual(counter.count, 1)
        XCTAssertFalse(first.report.stages[2].resumed)
        XCTAssertNotNil(first.report.stages[2].peakMemoryMB)
        XCTAssertNotEqual(first.scene.key, "")

        let second = pipeline()
        try second.run(CountingStage(runs: counter))
        XCTAssertEqual(counter.count, 1, "the same key: loaded, not run")
        XCTAssertEqual(counter.applied, [1, 1])
        XCTAssertTrue(second.report.stages[0].resumed)

        var changed = CountingStage(runs: counter)
        changed.options.value = 2
        try pipeline().run(changed)
        XCTAssertEqual(counter.count, 2, "another option: another key, the stage runs")
        XCTAssertEqual(counter.applied, [1, 1, 2])

        // A checkpoint whose output cannot be read counts as absent.
        let file = CheckpointStore(folder: OutputLayout(folder: output).checkpoints).url(CountingStage.name)
        var data = try Data(contentsOf: file)
        data.removeLast()
        data.append(contentsOf: Array("x".utf8))
        try data.write(to: file)
        try pipeline().run(changed)
        XCTAssertEqual(counter.count, 3)
    }

    func testCheckpointStoreUsesItsKeyOnly() throws {
        let store = CheckpointStore(folder: try temporaryDirectory().appendingPathComponent("checkpoints"))
        try store.save([1, 2, 3], stage: "s", key: "k1")
        XCTAssertEqual(store.load([Int].self, stage: "s", key: "k1"), [1, 2, 3])
        XCTAssertNil(store.load([Int].self, stage: "s", key: "k2"))
        XCTAssertTrue(store.has(stage: "s", key: "k1"))
        XCTAssertFalse(store.has(stage: "s", key: "k"))
        XCTAssertNil(store.load([String].self, stage: "s", key: "k1"), "another type does not decode")
        let names = try FileManager.default.contentsOfDirectory(atPath: store.folder.path)
        XCTAssertEqual(names, ["s.json"], "written through a temporary name that is gone")
    }

    func testReconstructionCheckpointIsExact() throws {
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .simpleRadial, width: 640, height: 480, params: [1520.123456789, 320.5, 240.25, -0.0123]))
        var generator = SeededGenerator(seed: 3)
        for i in 1...3 {
            let pose = Rigid3(angleAxis: SIMD3(Double.random(in: -1...1, using: &generator), 0.1, 0.2),
                              translation: SIMD3(Double(i) / 3, -0.7, 2.0 / 7))
            model.addImage(Image(id: ImageID(i), name: "image \(i).png", cameraID: CameraID(1), camFromWorld: i == 3 ? nil : pose,
                                 points2D: (0..<5).map { SIMD2(Double($0) * 1.1 / 3, Double(i) / 7) }))
        }
        model.addPoint3D(Point3D(position: SIMD3(0.1, 0.2, 1.0 / 3), color: SIMD3(1, 2, 3), error: 0.25,
                                 track: [TrackElement(imageID: ImageID(1), point2DIndex: 2), TrackElement(imageID: ImageID(2), point2DIndex: 4)]))
        let loaded = try JSONDecoder().decode(Reconstruction.self, from: JSONEncoder().encode(model))
        XCTAssertEqual(loaded.cameras, model.cameras)
        for (id, image) in model.images {
            let other = try XCTUnwrap(loaded.images[id])
            XCTAssertEqual(other.name, image.name)
            XCTAssertEqual(other.camFromWorld, image.camFromWorld, "bit for bit")
            XCTAssertEqual(other.points2D, image.points2D)
            XCTAssertEqual(other.point3DIDs, image.point3DIDs)
        }
        XCTAssertEqual(loaded.points3D.count, 1)
        let point = try XCTUnwrap(loaded.points3D.values.first), original = try XCTUnwrap(model.points3D.values.first)
        XCTAssertEqual(point.position, original.position)
        XCTAssertEqual(point.color, original.color)
        XCTAssertEqual(point.track, original.track)
        XCTAssertEqual(loaded.nextPoint3DID, model.nextPoint3DID)
    }

    func testContentDigestFollowsBytesNotTimes() throws {
        let folder = try temporaryDirectory()
        let a = folder.appendingPathComponent("a.png"), b = folder.appendingPathComponent("b.png")
        try Data("same bytes, another file".utf8).write(to: a)
        try Data("same bytes, another file".utf8).write(to: b)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1000)], ofItemAtPath: b.path)
        XCTAssertEqual(ContentDigest.file(a), ContentDigest.file(b))
        try Data("same bytes, another filE".utf8).write(to: b)
        XCTAssertNotEqual(ContentDigest.file(a), ContentDigest.file(b))
        XCTAssertNotEqual(ContentDigest.bytes(Data([0])), ContentDigest.bytes(Data([0, 0])), "the length counts")
    }

    func testLeftoversOfAKilledRunAreRemoved() throws {
        let layout = OutputLayout(folder: try temporaryDirectory())
        let fm = FileManager.default
        let depth = OutputLayout.depthMaps(in: layout.denseWork), input = OutputLayout.unpackedInput(in: layout.work)
        for folder in [layout.checkpoints, depth, input, layout.root.appendingPathComponent(".sparse.77.tmp/x")] {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let leftovers = [layout.root.appendingPathComponent("dense.ply.tmp"), layout.root.appendingPathComponent("dense.ply.body.tmp"),
                         layout.checkpoints.appendingPathComponent(".sparse.json.12.tmp"),
                         depth.appendingPathComponent("a.geometric.cvdm.tmp"),
                         OutputLayout.denseImages(in: layout.denseWork).appendingPathComponent("a.png.tmp.png")]
        let kept = [layout.root.appendingPathComponent("report.json"), layout.checkpoints.appendingPathComponent("sparse.json"),
                    depth.appendingPathComponent("a.geometric.cvdm"), input.appendingPathComponent("user-file.tmp")]
        try fm.createDirectory(at: OutputLayout.denseImages(in: layout.denseWork), withIntermediateDirectories: true)
        for url in leftovers + kept { try Data("x".utf8).write(to: url) }
        let removed = Leftovers.remove(in: layout)
        XCTAssertEqual(Set(removed), Set((leftovers + [layout.root.appendingPathComponent(".sparse.77.tmp")]).map(\.path)))
        for url in leftovers { XCTAssertFalse(fm.fileExists(atPath: url.path), url.path) }
        XCTAssertFalse(fm.fileExists(atPath: layout.root.appendingPathComponent(".sparse.77.tmp").path))
        for url in kept { XCTAssertTrue(fm.fileExists(atPath: url.path), "\(url.path) is no temporary (or is the user's)") }
    }

    func testExportPublishesAFolderWhole() throws {
        let root = try temporaryDirectory()
        let folder = root.appendingPathComponent("sparse")
        try ExportStage.publish(folder) { try Data("one".utf8).write(to: $0.appendingPathComponent("images.txt")) }
        try ExportStage.publish(folder) { try Data("two".utf8).write(to: $0.appendingPathComponent("images.txt")) }
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("images.txt"), encoding: .utf8), "two")
        XCTAssertThrowsError(try ExportStage.publish(folder) { _ in throw PipelineError.io("disk full") })
        XCTAssertEqual(try String(contentsOf: folder.appendingPathComponent("images.txt"), encoding: .utf8), "two",
                       "a failed write leaves the model that was there")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), ["sparse"])
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-stages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
