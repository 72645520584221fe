import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Pair selection: exhaustive while affordable, retrieval beyond, sequential for walks; the
/// re-matching pairs of a second pass.
final class PairSelectionTests: XCTestCase {
    func testExhaustivePairsAreAllPairsOnce() {
        let pairs = PairSelection.exhaustivePairs(count: 12)
        XCTAssertEqual(pairs.count, 12 * 11 / 2)
        XCTAssertEqual(Set(pairs).count, pairs.count)
        XCTAssertTrue(pairs.allSatisfy { $0.x < $0.y })
    }

    func testExhaustiveWhileTheComparisonsStayUnderBudget() {
        let options = PairSelectionOptions()
        func strategy(_ images: Int, features: Int) -> PairSelectionOptions.Strategy {
            PairSelection.strategy(featureCounts: Array(repeating: features, count: images), options: options)
        }
        let expected: Double = 200 + 300 + 600  // 10·20 + 10·30 + 20·30
        XCTAssertEqual(PairSelection.comparisons(featureCounts: [10, 20, 30]), expected)
        XCTAssertEqual(strategy(100, features: 1300), .exhaustive, "pavilion-outer: 8e9 comparisons")
        XCTAssertEqual(strategy(49, features: 8000), .exhaustive, "dtu-scan24 at full size: 7.5e10")
        XCTAssertEqual(strategy(400, features: 1300), .exhaustive, "1.35e11")
        XCTAssertEqual(strategy(450, features: 1300), .retrieval, "1.7e11")
        XCTAssertEqual(strategy(70, features: 8000), .retrieval, "1.5e11 is about 65 images of 8,000")
        XCTAssertEqual(strategy(501, features: 100), .retrieval, "more images than exhaustiveLimit")
        var walk = options
        walk.walk = true
        XCTAssertEqual(PairSelection.strategy(featureCounts: [100, 100, 100], options: walk), .sequential)
        var forced = options
        forced.strategy = .exhaustive
        XCTAssertEqual(PairSelection.strategy(featureCounts: Array(repeating: 8000, count: 300), options: forced), .exhaustive)
    }

    func testSequentialPairsGrowSubquadratically() {
        let options = PairSelectionOptions()
        let n1 = PairSelection.sequentialPairs(count: 200, options: options).count
        let n2 = PairSelection.sequentialPairs(count: 800, options: options).count
        XCTAssertLessThan(Double(n2) / Double(n1), 5.0, "4x the images must cost well under 16x the pairs")
        XCTAssertLessThan(n2, 800 * 799 / 2 / 20)
        let pairs = PairSelection.sequentialPairs(count: 800, options: options)
        XCTAssertEqual(Set(pairs).count, pairs.count, "no duplicates")
        XCTAssertTrue(pairs.contains(SIMD2(0, 799)), "the walk's ends are matched to close the loop")
        XCTAssertTrue(pairs.contains(SIMD2(100, 110)))
    }

    func testWalkIsSequentialWithLoopClosure() {
        let set = Set(PairSelection.sequentialPairs(count: 60, options: PairSelectionOptions()))
        XCTAssertLessThan(set.count, 60 * 59 / 2 / 2, "a walk is not matched exhaustively")
        for i in 0..<50 { XCTAssertTrue(set.contains(SIMD2(Int32(i), Int32(i + 10))), "neighbours \(i), \(i + 10)") }
        XCTAssertTrue(set.contains(SIMD2(0, 59)) && set.contains(SIMD2(5, 55)), "the loop closes at the ends")
        XCTAssertTrue(set.contains(SIMD2(0, 20)) && set.contains(SIMD2(0, 40)), "pairs 2^k apart")
        XCTAssertFalse(set.contains(SIMD2(25, 56)), "nothing 31 apart mid-walk")
    }

    /// Neighbour lists of `count` images on a circle: each retrieves the `k` nearest positions.
    private func circleNeighbours(count: Int, k: Int, position: (Int) -> Int) -> [[ImageRetrieval.Neighbour]] {
        let imageAt = Dictionary(uniqueKeysWithValues: (0..<count).map { (position($0), $0) })
        return (0..<count).map { image in
            let p = position(image)
            let offsets = (1...k).map { ($0 + 1) / 2 * ($0 % 2 == 1 ? 1 : -1) }
            return offsets.map { ImageRetrieval.Neighbour(image: imageAt[((p + $0) % count + count) % count]!, score: 1 / Float(abs($0))) }
        }
    }

    func testRetrievalOfASequenceAddsSequentialNeighbours() {
        var options = PairSelectionOptions()
        options.sequentialOverlap = 3
        let selection = PairSelection.retrievalPairs(neighbours: circleNeighbours(count: 80, k: 4) { $0 }, options: options)
        XCTAssertTrue(selection.isSequence)
        XCTAssertEqual(selection.consecutiveFraction ?? 0, 1, accuracy: 1e-12)
        let set = Set(selection.pairs)
        XCTAssertEqual(set.count, selection.pairs.count, "no duplicates")
        XCTAssertTrue(selection.pairs.allSatisfy { $0.x < $0.y })
        XCTAssertTrue(set.contains(SIMD2(0, 79)) && set.contains(SIMD2(1, 79)), "retrieval closes the loop")
        XCTAssertTrue(set.contains(SIMD2(10, 13)), "sequential neighbour 3 ahead (retrieval gave 2)")
        XCTAssertTrue(set.contains(SIMD2(10, 16)) && set.contains(SIMD2(10, 22)), "quadratic overlap")
        XCTAssertFalse(set.contains(SIMD2(10, 15)))
    }

    func testRetrievalOfAnUnorderedCaptureIsRetrievalOnly() {
        // The same circle with images numbered in a scrambled order: consecutive indices are not
        // neighbours, so nothing sequential is added.
        let count = 80
        let position = { (image: Int) in (image * 37) % count }  // 37 is coprime to 80
        let neighbours = circleNeighbours(count: count, k: 4, position: position)
        let selection = PairSelection.retrievalPairs(neighbours: neighbours, options: PairSelectionOptions())
        XCTAssertFalse(selection.isSequence)
        XCTAssertLessThan(selection.consecutiveFraction ?? 1, 0.1)
        let expected = Set(neighbours.enumerated().flatMap { i, list in
            list.map { SIMD2(Int32(min(i, $0.image)), Int32(max(i, $0.image))) }
        })
        XCTAssertEqual(Set(selection.pairs), expected)
        XCTAssertEqual(selection.pairs.count, count * 2, "each image with the 2 nearest on either side, each pair once")
    }

    func testTransitivePairsOnAHandMadeGraph() {
        // 0-1, 1-2, 2-3, 0-4 verified, and 0-2 tried but rejected; 5 alone.
        func edge(_ a: Int, _ b: Int, matches: Int = 50) -> MatchGraph.Edge {
            MatchGraph.Edge(first: a, second: b, matches: Array(repeating: SIMD2(0, 0), count: matches), configuration: .uncalibrated)
        }
        let graph = MatchGraph(numImages: 6, edges: [edge(0, 1), edge(1, 2), edge(2, 3), edge(0, 4, matches: 10)])
        var tried = Set(graph.edges.map { SIMD2(Int32($0.first), Int32($0.second)) })
        tried.insert(SIMD2(0, 2))
        XCTAssertEqual(PairSelection.transitivePairs(graph: graph, tried: tried), [SIMD2(1, 3), SIMD2(1, 4)])
        XCTAssertEqual(PairSelection.transitivePairs(graph: graph, tried: tried, minMatches: 20), [SIMD2(1, 3)],
                       "the weak 0-4 edge does not link")
        XCTAssertEqual(PairSelection.transitivePairs(graph: graph, tried: tried.subtracting([SIMD2(0, 2)])),
                       [SIMD2(0, 2), SIMD2(1, 3), SIMD2(1, 4)])
        tried.formUnion([SIMD2(1, 3), SIMD2(1, 4)])
        XCTAssertEqual(PairSelection.transitivePairs(graph: graph, tried: tried), [], "nothing twice")

        // A star around 0 with 100, 50 and 10 matches: candidates 1-2 (support 50), 1-3 and 2-3 (10).
        let star = MatchGraph(numImages: 4, edges: [edge(0, 1, matches: 100), edge(0, 2, matches: 50), edge(0, 3, matches: 10)])
        let starTried: Set<SIMD2<Int32>> = [SIMD2(0, 1), SIMD2(0, 2), SIMD2(0, 3)]
        XCTAssertEqual(PairSelection.transitivePairs(graph: star, tried: starTried), [SIMD2(1, 2), SIMD2(1, 3), SIMD2(2, 3)])
        XCTAssertEqual(PairSelection.transitivePairs(graph: star, tried: starTried, maxPerImage: 1), [SIMD2(1, 2), SIMD2(1, 3)],
                       "1 and 2 keep 1-2; 3 keeps the lower of its tied candidates")
    }

    func testSpatialPairsOnAHandMadeReconstruction() {
        // 16 cameras on a full ring around a box of points (22.5° apart), all registered, with
        // their observations as tracks.
        var options = SyntheticScene.Options()
        options.numImages = 16
        options.numPoints = 400
        options.seed = 4
        let scene = SyntheticScene(options)
        var model = scene.reconstruction
        for (id, point) in model.points3D {
            for element in point.track { model.images[element.imageID]!.point3DIDs[element.point2DIndex] = id }
        }
        // The first pass matched each image with its next neighbour only.
        let tried = Set((0..<16).map { SIMD2(Int32($0), Int32(($0 + 1) % 16)) }.map { SIMD2(min($0.x, $0.y), max($0.x, $0.y)) })
        let pairs = PairSelection.spatialPairs(reconstruction: model, tried: tried)
        let set = Set(pairs)
        XCTAssertEqual(set.count, pairs.count)
        XCTAssertTrue(pairs.allSatisfy { $0.x < $0.y && !tried.contains($0) })
        func ringGap(_ p: SIMD2<Int32>) -> Int { let d = Int(p.y - p.x); return min(d, 16 - d) }
        // Axes 45° apart (two steps) qualify, 67.5° (three) do not: 60° is the limit.
        XCTAssertEqual(set, Set(pairs.filter { ringGap($0) == 2 }))
        XCTAssertEqual(pairs.count, 16, "every image with the one two steps ahead")
        var strict = SpatialPairOptions()
        strict.maxViewAngleDegrees = 30
        XCTAssertEqual(PairSelection.spatialPairs(reconstruction: model, tried: tried, options: strict), [])
        var wide = SpatialPairOptions()
        wide.maxViewAngleDegrees = 100
        XCTAssertEqual(Set(PairSelection.spatialPairs(reconstruction: model, tried: tried, options: wide).map(ringGap)), [2, 3, 4])
        // An unregistered image gets no spatial pair.
        model.images[ImageID(3)]!.camFromWorld = nil
        XCTAssertFalse(PairSelection.spatialPairs(reconstruction: model, tried: tried).contains { $0.x == 2 || $0.y == 2 })
    }
}
