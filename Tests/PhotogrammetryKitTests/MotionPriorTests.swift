import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The motion prior of sequences: bundle adjustment keeps consecutive frames near constant
/// velocity where the points leave a frame's distance free, and the mapper registers a frame that
/// sees too few points at the distance its sequence's speed gives.
final class MotionPriorTests: XCTestCase {
    /// Five cameras one unit apart along x, looking along +z. Frames 0-2 share 60 points; frames
    /// 2-3 and 3-4 share 30 each, seen by those two only (a video's weak link). Frames 3 and 4 and
    /// their points are then shrunk by half about frame 2's centre: the images see exactly what
    /// they saw (a similarity of everything frame 2 sees along its rays), so reprojection alone
    /// cannot tell the true distance from the shrunk one.
    func makeChain() -> (Reconstruction, [ImageID]) {
        var rec = Reconstruction()
        let camera = Camera(id: CameraID(1), model: .simplePinhole, width: 800, height: 600, params: [500, 400, 300])
        rec.addCamera(camera)
        let centers = (0..<5).map { SIMD3(Double($0), 0, 0) }
        var rng = SeededGenerator(seed: 5)
        var points: [(SIMD3<Double>, [Int])] = []
        for _ in 0..<60 { points.append((SIMD3(rng.uniform(-2, 4), rng.uniform(-2, 2), rng.uniform(6, 12)), [0, 1, 2])) }
        for _ in 0..<30 { points.append((SIMD3(rng.uniform(0, 5), rng.uniform(-2, 2), rng.uniform(6, 12)), [2, 3])) }
        for _ in 0..<30 { points.append((SIMD3(rng.uniform(1, 6), rng.uniform(-2, 2), rng.uniform(6, 12)), [3, 4])) }
        let ids = (0..<5).map { ImageID($0 + 1) }
        // Every point is a keypoint of every image (unobserved ones stay unlinked), at its true projection.
        for (i, id) in ids.enumerated() {
            let pose = Rigid3(rotation: .identity, translation: -centers[i])
            let keypoints = points.map { camera.project(pose.apply($0.0)) ?? .zero }
            rec.addImage(Image(id: id, name: "\(i)", cameraID: camera.id, camFromWorld: pose, points2D: keypoints))
        }
        for (k, point) in points.enumerated() {
            rec.addPoint3D(Point3D(position: point.0, track: point.1.map { TrackElement(imageID: ids[$0], point2DIndex: k) }))
        }
        // Shrink frames 3 and 4 and the points only they see by half about frame 2's centre.
        let pivot = centers[2]
        for i in [3, 4] {
            rec.images[ids[i]]!.camFromWorld = Rigid3(rotation: .identity, translation: -(pivot + 0.5 * (centers[i] - pivot)))
        }
        for id in rec.points3D.keys where !rec.points3D[id]!.track.contains(where: { $0.imageID == ids[0] }) {
            rec.points3D[id]!.position = pivot + 0.5 * (rec.points3D[id]!.position - pivot)
        }
        return (rec, ids)
    }

    func step(_ rec: Reconstruction, _ a: ImageID, _ b: ImageID) -> Double {
        length(rec.images[a]!.camFromWorld!.centerInWorld - rec.images[b]!.camFromWorld!.centerInWorld)
    }

    func testTheMotionPriorRestoresAStepThePointsLeaveFree() throws {
        var options = BundleAdjustmentOptions()
        options.refineFocalLength = false
        options.refineExtraParams = false
        let (start, ids) = makeChain()
        XCTAssertEqual(step(start, ids[2], ids[3]), 0.5, accuracy: 1e-12)

        var without = start
        let plain = try BundleAdjuster.adjust(&without, imageIDs: Set(ids.dropFirst(2)), constantImageIDs: Set(ids.prefix(2)),
                                              options: options)
        XCTAssertLessThan(plain.finalRMSError, 1e-6)
        XCTAssertEqual(step(without, ids[2], ids[3]), 0.5, accuracy: 1e-6, "reprojection alone leaves the step where it was")

        var with = start
        let motion = BundleMotionPrior(triples: [(ids[0], ids[1], ids[2]), (ids[1], ids[2], ids[3]), (ids[2], ids[3], ids[4])],
                                       sigmaFraction: 0.5, lossScale: 1)
        let summary = try BundleAdjuster.adjust(&with, imageIDs: Set(ids.dropFirst(2)), constantImageIDs: Set(ids.prefix(2)),
                                                motion: motion, options: options)
        XCTAssertLessThan(summary.finalRMSError, 1e-3, "the images are still seen as they were")
        XCTAssertEqual(step(with, ids[2], ids[3]), 1, accuracy: 0.02, "constant speed: the true step")
        XCTAssertEqual(step(with, ids[3], ids[4]), 1, accuracy: 0.02)
    }

    func testAFrameWithTooFewPointsJoinsAtItsSequencesSpeed() throws {
        // A ring of 12 evenly spaced views (a constant-speed sequence) whose two arcs are linked by
        // 20 matches; asking 50 points for the distance leaves only the speed to give it.
        let (scene, base) = ModelMergingTests.makeProblem(linkMatches: 20, merge: false)
        func mapper(motion: Bool) -> IncrementalMapper {
            var options = base.options
            options.relativeRegistrationMinPoints = 50
            options.motionPriorSequenceFraction = motion ? 0.5 : 2
            return IncrementalMapper(reconstruction: base.blankModel, tracks: base.tracks, graph: base.graph,
                                     colors: base.colors, cameraHasPrior: [scene.camera.id: true],
                                     nearDuplicates: base.isNearDuplicate, options: options)
        }
        let moving = mapper(motion: true)
        let model = try moving.run()
        XCTAssertEqual(model.registeredImageIDs.count, 12, "both arcs in one model")
        XCTAssertGreaterThanOrEqual(moving.numRegisteredByMotion, 1)
        XCTAssertLessThan(ModelMergingTests.maxPairError(model, scene), 1, "every pair of cameras within a degree")

        let still = mapper(motion: false)
        XCTAssertEqual(try still.run().registeredImageIDs.count, 6, "without the speed the link splits the ring")
        XCTAssertEqual(still.numRegisteredByMotion, 0)
    }

    func testConsecutiveFractionTellsASequenceFromACollection() {
        let edge = { (a: Int, b: Int) in MatchGraph.Edge(first: a, second: b, matches: [], configuration: .calibrated) }
        XCTAssertEqual(MatchGraph(numImages: 5, edges: [edge(0, 1), edge(1, 2), edge(2, 3), edge(3, 4)]).consecutiveFraction, 1)
        XCTAssertEqual(MatchGraph(numImages: 5, edges: [edge(0, 2), edge(1, 3), edge(2, 4), edge(0, 1)]).consecutiveFraction, 0.25)
        XCTAssertEqual(MatchGraph(numImages: 1).consecutiveFraction, 0)
    }
}
