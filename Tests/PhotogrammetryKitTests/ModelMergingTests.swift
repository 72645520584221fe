import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Detached models: two arcs of a ring linked by a handful of matches end up in one model.
final class ModelMergingTests: XCTestCase {
    /// A ring of 12 cameras split into two arcs of 6 whose only link is `linkMatches` matches
    /// between the arcs' neighbouring ends (images 5 and 6): far too few for PnP across the gap.
    static func makeProblem(linkMatches: Int, merge: Bool = true) -> (scene: SyntheticScene, mapper: IncrementalMapper) {
        Self.makeProblem(arcs: [0..<6, 6..<12], links: [(5, 6, linkMatches)], merge: merge)
    }

    /// A ring of 12 cameras cut into `arcs`; images of one arc all match each other, and images
    /// of different arcs match only through `links` (image a, image b, number of matches).
    static func makeProblem(arcs: [Range<Int>], links: [(Int, Int, Int)],
                     merge: Bool = true) -> (scene: SyntheticScene, mapper: IncrementalMapper) {
        var options = SyntheticScene.Options()
        options.numImages = 12
        options.numPoints = 500
        options.pixelNoise = 0.3
        options.model = .simplePinhole
        options.seed = 21
        let scene = SyntheticScene(options)

        // Matches between two images: keypoints of the same true point.
        var keypointOfPoint: [ImageID: [Point3DID: Int32]] = [:]
        for (id, point) in scene.reconstruction.points3D {
            for element in point.track { keypointOfPoint[element.imageID, default: [:]][id] = Int32(element.point2DIndex) }
        }
        func matches(_ a: Int, _ b: Int) -> [SIMD2<Int32>] {
            let ka = keypointOfPoint[ImageID(a + 1)] ?? [:], kb = keypointOfPoint[ImageID(b + 1)] ?? [:]
            return ka.keys.sorted().compactMap { id in kb[id].map { SIMD2(ka[id]!, $0) } }
        }
        var graph = MatchGraph(numImages: 12)
        for a in 0..<12 {
            for b in (a + 1)..<12 {
                let sameArc = arcs.contains { $0.contains(a) && $0.contains(b) }
                if sameArc {
                    graph.edges.append(.init(first: a, second: b, matches: matches(a, b), configuration: .calibrated))
                } else if let link = links.first(where: { $0.0 == a && $0.1 == b }) {
                    graph.edges.append(.init(first: a, second: b, matches: Array(matches(a, b).prefix(link.2)),
                                             configuration: .calibrated))
                }
            }
        }
        var blank = Reconstruction()
        blank.addCamera(scene.camera)
        for id in scene.imageIDs {
            let image = scene.reconstruction.images[id]!
            blank.addImage(Image(id: id, name: image.name, cameraID: image.cameraID, points2D: image.points2D))
        }
        let tracks = TrackSet(graph: graph, keypointCounts: scene.imageIDs.map { blank.images[$0]!.points2D.count })
        var mapperOptions = MapperOptions()
        mapperOptions.refineIntrinsics = false
        mapperOptions.mergeDetachedModels = merge
        let mapper = IncrementalMapper(
            reconstruction: blank, tracks: tracks, graph: graph,
            colors: scene.imageIDs.map { Array(repeating: SIMD3<UInt8>(128, 128, 128), count: blank.images[$0]!.points2D.count) },
            cameraHasPrior: [scene.camera.id: true], options: mapperOptions)
        return (scene, mapper)
    }

    /// The largest pairwise relative-pose error (degrees) of the registered images against truth.
    /// Unregistered images count as 180° unless `registeredOnly`.
    static func maxPairError(_ model: Reconstruction, _ scene: SyntheticScene, registeredOnly: Bool = false) -> Double {
        let ids = scene.imageIDs.filter { !registeredOnly || model.images[$0]?.camFromWorld != nil }
        let estimated = ids.map { model.images[$0]?.camFromWorld }
        let reference = ids.map { scene.reconstruction.images[$0]!.camFromWorld! }
        return PoseComparison.pairErrors(estimated: estimated, reference: reference).max() ?? .infinity
    }

    func testTwoArcsLinkedByTenMatchesMergeIntoOneAccurateModel() throws {
        let (scene, mapper) = Self.makeProblem(linkMatches: 10)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 12, "both arcs registered")
        XCTAssertLessThan(Self.maxPairError(model, scene), 0.5, "every pair of cameras within half a degree")
    }

    func testWithoutMergingOnlyOneArcRegisters() throws {
        let (_, mapper) = Self.makeProblem(linkMatches: 10, merge: false)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 6, "PnP cannot cross a 10-match gap")
    }

    func testArcsLinkedByTooFewTracksStayApart() throws {
        // Four shared tracks cannot vouch for a similarity: the main model stays as it was.
        let (scene, mapper) = Self.makeProblem(linkMatches: 4)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 6)
        // Both arcs are results: two models of six, each accurate in itself.
        XCTAssertEqual(mapper.models.map(\.registeredImageIDs.count), [6, 6])
        XCTAssertEqual(Set(mapper.models[0].registeredImageIDs).intersection(mapper.models[1].registeredImageIDs).count, 0)
        for other in mapper.models { XCTAssertLessThan(Self.maxPairError(other, scene, registeredOnly: true), 0.5) }
    }

    func testTwoDetachedArcsJoinEachOtherAndTheLargestComesFirst() throws {
        // Three arcs of four: the first joins nothing; the second and third, both detached from
        // whichever the mapper starts with, are linked and must merge into one model of eight.
        let (scene, mapper) = Self.makeProblem(arcs: [0..<4, 4..<8, 8..<12], links: [(7, 8, 12)])
        let model = try mapper.run()
        XCTAssertEqual(mapper.models.map(\.registeredImageIDs.count), [8, 4])
        XCTAssertEqual(Set(model.registeredImageIDs.map(\.rawValue)), Set(5...12))
        XCTAssertLessThan(Self.maxPairError(model, scene, registeredOnly: true), 0.5, "the merged arcs agree with the truth")
    }

    func testSimilarityMovesCamerasWithTheirWorld() {
        let s = Similarity3(scale: 2.5, rotation: Rotation.matrix(angleAxis: SIMD3(0.3, -0.2, 0.5)),
                            translation: SIMD3(1, -2, 0.5))
        let pose = Rigid3(angleAxis: SIMD3(-0.1, 0.4, 0.2), translation: SIMD3(0.3, 0.1, 4))
        let point = SIMD3<Double>(0.2, -0.4, 1.1)
        let moved = s.transform(pose)
        let before = pose.apply(point), after = moved.apply(s.apply(point))
        XCTAssertEqual(after.x / after.z, before.x / before.z, accuracy: 1e-12)
        XCTAssertEqual(after.y / after.z, before.y / before.z, accuracy: 1e-12)
        let back = s.inverse.apply(s.apply(point))
        XCTAssertEqual(length(back - point), 0, accuracy: 1e-12)
    }
}
