import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A video that pauses: copies of frames are found, kept out of the initial pair and registered
/// last, and the model is as accurate as without them.
final class NearDuplicateFramesTests: XCTestCase {
    /// Ten views on a ring, and copies of views 3 and 7 (indices 2 and 6) with fresh keypoint
    /// noise, inserted right after their twins: twelve images, copies at indices 3 and 8.
    func makeProblem() -> (scene: SyntheticScene, mapper: IncrementalMapper, twinOf: [Int]) {
        var options = SyntheticScene.Options()
        options.numImages = 10
        options.numPoints = 400
        options.pixelNoise = 0.3
        options.model = .simplePinhole
        options.ringArc = .pi
        options.seed = 5
        let scene = SyntheticScene(options)
        let twinOf = [0, 1, 2, 2, 3, 4, 5, 6, 6, 7, 8, 9]  // source view of every image
        var random = SeededGenerator(seed: 77)
        var keypointOfPoint: [[Point3DID: Int32]] = []
        var blank = Reconstruction()
        blank.addCamera(scene.camera)
        for (i, source) in twinOf.enumerated() {
            let image = scene.reconstruction.images[scene.imageIDs[source]]!
            var points = image.points2D
            if i > 0 && twinOf[i - 1] == source {
                points = points.map { $0 + 0.3 * SIMD2(random.gaussian(), random.gaussian()) }
            }
            blank.addImage(Image(id: ImageID(i + 1), name: String(format: "frame%02d.png", i),
                                 cameraID: image.cameraID, points2D: points))
            var map: [Point3DID: Int32] = [:]
            for (id, point) in scene.reconstruction.points3D {
                for element in point.track where element.imageID == image.id { map[id] = Int32(element.point2DIndex) }
            }
            keypointOfPoint.append(map)
        }
        var graph = MatchGraph(numImages: twinOf.count)
        for a in twinOf.indices {
            for b in (a + 1)..<twinOf.count {
                let ka = keypointOfPoint[a], kb = keypointOfPoint[b]
                let matches = ka.keys.sorted().compactMap { id in kb[id].map { SIMD2(ka[id]!, $0) } }
                if matches.count >= 30 {
                    graph.edges.append(.init(first: a, second: b, matches: matches, configuration: .calibrated))
                }
            }
        }
        let tracks = TrackSet(graph: graph, keypointCounts: twinOf.indices.map { blank.images[ImageID($0 + 1)]!.points2D.count })
        var mapperOptions = MapperOptions()
        mapperOptions.refineIntrinsics = false
        let mapper = IncrementalMapper(
            reconstruction: blank, tracks: tracks, graph: graph,
            colors: twinOf.indices.map { Array(repeating: SIMD3<UInt8>(128, 128, 128), count: blank.images[ImageID($0 + 1)]!.points2D.count) },
            cameraHasPrior: [scene.camera.id: true], options: mapperOptions)
        return (scene, mapper, twinOf)
    }

    func testCopiesAreFoundAndOnlyThem() {
        let (_, mapper, _) = makeProblem()
        XCTAssertEqual((0..<12).filter { mapper.isNearDuplicate[$0] }, [3, 8])
    }

    func testCopiesStayOutOfTheInitialPairAndRegisterLast() throws {
        let (scene, mapper, twinOf) = makeProblem()
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 12, "the copies register too")
        XCTAssertFalse(mapper.registrationOrder.prefix(2).contains(3) || mapper.registrationOrder.prefix(2).contains(8))
        XCTAssertEqual(Set(mapper.registrationOrder.suffix(2)), [3, 8], "copies wait until nothing else can register")
        // The distinct views against the truth (a copy and its twin have no baseline to compare).
        let distinct = twinOf.indices.filter { !mapper.isNearDuplicate[$0] }
        let estimated = distinct.map { model.images[ImageID($0 + 1)]?.camFromWorld }
        let reference = distinct.map { scene.reconstruction.images[scene.imageIDs[twinOf[$0]]]!.camFromWorld! }
        let worst = PoseComparison.pairErrors(estimated: estimated, reference: reference).max() ?? .infinity
        XCTAssertLessThan(worst, 0.5, "every pair within half a degree")
        // And every copy where its twin is, in rotation.
        for (copy, twin) in [(3, 2), (8, 7)] {
            let a = model.images[ImageID(copy + 1)]!.camFromWorld!, b = model.images[ImageID(twin + 1)]!.camFromWorld!
            XCTAssertLessThan(Rotation.angleDegrees(between: a.rotation, and: b.rotation), 0.2)
        }
    }

    func testMovingFramesAreNotCopies() {
        // Views 18° apart on an orbit that fixates the object: none is marked.
        var options = SyntheticScene.Options()
        options.numImages = 10
        options.ringArc = .pi
        let scene = SyntheticScene(options)
        var graph = MatchGraph(numImages: 10)
        var keypointOfPoint: [[Point3DID: Int32]] = Array(repeating: [:], count: 10)
        for (id, point) in scene.reconstruction.points3D {
            for element in point.track { keypointOfPoint[element.imageID.rawValue - 1][id] = Int32(element.point2DIndex) }
        }
        for a in 0..<10 {
            for b in (a + 1)..<10 {
                let ka = keypointOfPoint[a], kb = keypointOfPoint[b]
                let matches = ka.keys.sorted().compactMap { id in kb[id].map { SIMD2(ka[id]!, $0) } }
                if !matches.isEmpty { graph.edges.append(.init(first: a, second: b, matches: matches, configuration: .calibrated)) }
            }
        }
        let duplicates = NearDuplicateFrames.detect(
            graph: graph, keypoints: scene.imageIDs.map { scene.reconstruction.images[$0]!.points2D },
            longerSide: Array(repeating: scene.camera.longerSide, count: 10))
        XCTAssertEqual(duplicates, Array(repeating: false, count: 10))
    }
}
