import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Inconsistent components split into consistent tracks, and the mapper keeps them long.
final class TrackSplittingTests: XCTestCase {
    private func edge(_ a: Int, _ b: Int, _ pairs: [(Int32, Int32)]) -> MatchGraph.Edge {
        MatchGraph.Edge(first: a, second: b, matches: pairs.map { SIMD2($0.0, $0.1) }, configuration: .uncalibrated)
    }

    func testInconsistentComponentSplitsStrongestPairFirst() {
        // 0:1 - 1:1 - 2:1 along the two strong pairs, and 0:5 - 2:1 in the weak one: image 0 twice.
        let graph = MatchGraph(numImages: 3, edges: [
            edge(0, 1, [(1, 1), (2, 2), (3, 3)]), edge(1, 2, [(1, 1), (2, 2)]), edge(0, 2, [(5, 1)]),
        ])
        let dropped = TrackSet(graph: graph, keypointCounts: [8, 8, 8])
        XCTAssertEqual(dropped.numInconsistent, 1)
        XCTAssertFalse(dropped.tracks.contains([SIMD2(0, 1), SIMD2(1, 1), SIMD2(2, 1)]))

        let split = TrackSet(graph: graph, keypointCounts: [8, 8, 8], splittingInconsistent: true)
        XCTAssertEqual(split.numInconsistent, 1)
        XCTAssertEqual(split.numSplitTracks, 1, "the weak pair's keypoint stays alone")
        XCTAssertEqual(Set(split.tracks), Set([
            [SIMD2(0, 1), SIMD2(1, 1), SIMD2(2, 1)], [SIMD2(0, 2), SIMD2(1, 2), SIMD2(2, 2)], [SIMD2(0, 3), SIMD2(1, 3)],
        ]))
        XCTAssertEqual(split.trackOfKeypoint[0][5], -1)
        XCTAssertEqual(split.trackOfKeypoint[2][1], split.trackOfKeypoint[0][1])
        // Consistent components are the same either way.
        for track in dropped.tracks { XCTAssertTrue(split.tracks.contains(track)) }
    }

    func testSplitTracksAreConsistentOnSeededRandomConflicts() {
        // Chains of 6 images where random matches are rewired to a second keypoint of one image.
        var rng = SplitMix64(seed: 3)
        let numImages = 6, numPoints = 300
        var edges: [MatchGraph.Edge] = []
        for a in 0..<numImages {
            for b in (a + 1)..<numImages {
                var pairs: [(Int32, Int32)] = []
                for p in 0..<numPoints {
                    // Keypoint p + numPoints of image a is p's twin, used by some pairs only.
                    let twin = rng.uniform() < 0.1
                    pairs.append((Int32(twin ? p + numPoints : p), Int32(p)))
                }
                edges.append(edge(a, b, pairs))
            }
        }
        let counts = Array(repeating: 2 * numPoints, count: numImages)
        let tracks = TrackSet(graph: MatchGraph(numImages: numImages, edges: edges), keypointCounts: counts,
                              splittingInconsistent: true)
        XCTAssertGreaterThan(tracks.numInconsistent, 100)
        for track in tracks.tracks {
            XCTAssertEqual(Set(track.map(\.x)).count, track.count, "one keypoint per image")
            for o in track { XCTAssertEqual(tracks.tracks[Int(tracks.trackOfKeypoint[Int(o.x)][Int(o.y)])], track) }
        }
        // Most points keep a track through all six images; dropping would lose nearly all of them.
        XCTAssertGreaterThan(tracks.tracks.filter { $0.count == numImages }.count, numPoints / 2)
        let dropped = TrackSet(graph: MatchGraph(numImages: numImages, edges: edges), keypointCounts: counts)
        let observations = { (set: TrackSet) in set.tracks.reduce(0) { $0 + $1.count } }
        XCTAssertGreaterThan(observations(tracks), 3 * observations(dropped))
        XCTAssertGreaterThan(tracks.meanTrackLength, 4.5)
    }

    /// A walk of 16 frames once around a box of points, matched in a window of three plus the
    /// loop's ends; a fifth of the points is found twice in one frame (a twin keypoint half a pixel
    /// away), and one pair matches the twin instead of the original.
    private func makeWalk() -> (scene: SyntheticScene, graph: MatchGraph, blank: Reconstruction) {
        var options = SyntheticScene.Options()
        options.numImages = 16
        options.numPoints = 600
        options.pixelNoise = 0.5
        options.model = .simplePinhole
        options.seed = 5
        let scene = SyntheticScene(options)
        var rng = SplitMix64(seed: 11)
        var keypoints = scene.imageIDs.map { scene.reconstruction.images[$0]!.points2D }
        var keypointOfPoint = Array(repeating: [Point3DID: Int32](), count: 16)
        for (id, point) in scene.reconstruction.points3D {
            for element in point.track { keypointOfPoint[element.imageID.rawValue - 1][id] = Int32(element.point2DIndex) }
        }
        // twin[(image, point)]: the twin keypoint of the point in that image, and the partner
        // image whose pair matches the twin.
        var twin = [SIMD2<Int>: (keypoint: Int32, partner: Int)]()
        for (id, point) in scene.reconstruction.points3D.sorted(by: { $0.key < $1.key }) where point.track.count >= 4 {
            guard rng.uniform() < 0.2 else { continue }
            let images = point.track.map { $0.imageID.rawValue - 1 }.sorted()
            let at = images[Int(rng.next() % UInt64(images.count - 1))]
            guard let partner = images.first(where: { $0 > at && $0 - at <= 3 }) else { continue }
            let original = keypoints[at][Int(keypointOfPoint[at][id]!)]
            twin[SIMD2(at, id.rawValue)] = (Int32(keypoints[at].count), partner)
            keypoints[at].append(original + SIMD2(0.5, 0))
        }
        var graph = MatchGraph(numImages: 16)
        for a in 0..<16 {
            for b in (a + 1)..<16 where b - a <= 3 || a + 16 - b <= 2 {
                var matches: [SIMD2<Int32>] = []
                for id in keypointOfPoint[a].keys.sorted() {
                    guard var ka = keypointOfPoint[a][id], var kb = keypointOfPoint[b][id] else { continue }
                    if let t = twin[SIMD2(a, id.rawValue)], t.partner == b { ka = t.keypoint }
                    if let t = twin[SIMD2(b, id.rawValue)], t.partner == a { kb = t.keypoint }
                    matches.append(SIMD2(ka, kb))
                }
                graph.edges.append(.init(first: a, second: b, matches: matches, configuration: .calibrated))
            }
        }
        var blank = Reconstruction()
        blank.addCamera(scene.camera)
        for (i, id) in scene.imageIDs.enumerated() {
            let image = scene.reconstruction.images[id]!
            blank.addImage(Image(id: id, name: image.name, cameraID: image.cameraID, points2D: keypoints[i]))
        }
        return (scene, graph, blank)
    }

    private func reconstruct(split: Bool, retriangulate: Bool) throws -> (model: Reconstruction, scene: SyntheticScene) {
        let (scene, graph, blank) = makeWalk()
        var options = MapperOptions()
        options.refineIntrinsics = false
        options.splitInconsistentTracks = split
        options.retriangulateBeforeGlobalBundle = retriangulate
        let tracks = TrackSet(graph: graph, keypointCounts: scene.imageIDs.map { blank.images[$0]!.points2D.count },
                              splittingInconsistent: split)
        let mapper = IncrementalMapper(
            reconstruction: blank, tracks: tracks, graph: graph,
            colors: scene.imageIDs.map { Array(repeating: SIMD3<UInt8>(128, 128, 128), count: blank.images[$0]!.points2D.count) },
            cameraHasPrior: [scene.camera.id: true], options: options)
        return (try mapper.run(), scene)
    }

    private func pairErrors(_ model: Reconstruction, _ scene: SyntheticScene) -> [Double] {
        PoseComparison.pairErrors(estimated: scene.imageIDs.map { model.images[$0]?.camFromWorld },
                                  reference: scene.imageIDs.map { scene.reconstruction.images[$0]!.camFromWorld! })
    }

    func testSplitTracksAndRetriangulationLengthenTracksWithoutCostingAccuracy() throws {
        let (before, scene) = try reconstruct(split: false, retriangulate: false)
        let (after, _) = try reconstruct(split: true, retriangulate: true)
        XCTAssertEqual(before.registeredImageIDs.count, 16)
        XCTAssertEqual(after.registeredImageIDs.count, 16)
        // The fifth of the points whose tracks were dropped come back (split at the twin), and
        // every image keeps more observations: longer tracks in all.
        XCTAssertGreaterThan(Double(after.points3D.count), 1.1 * Double(before.points3D.count))
        XCTAssertGreaterThan(Double(after.numObservations), 1.15 * Double(before.numObservations),
                             "observations \(before.numObservations) -> \(after.numObservations)")
        let errorsBefore = pairErrors(before, scene).sorted(), errorsAfter = pairErrors(after, scene).sorted()
        let medianBefore = errorsBefore[errorsBefore.count / 2], medianAfter = errorsAfter[errorsAfter.count / 2]
        XCTAssertLessThan(medianAfter, 0.1, "degrees")
        XCTAssertLessThanOrEqual(medianAfter, medianBefore * 1.1, "median pair error \(medianBefore) -> \(medianAfter)")
    }
}
