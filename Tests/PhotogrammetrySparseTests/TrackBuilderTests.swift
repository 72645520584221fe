import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Tracks from union-find over matches: chains merge, conflicts drop, numbering is stable.
final class TrackBuilderTests: XCTestCase {
    private func edge(_ a: Int, _ b: Int, _ pairs: [(Int32, Int32)]) -> MatchGraph.Edge {
        MatchGraph.Edge(first: a, second: b, matches: pairs.map { SIMD2($0.0, $0.1) }, configuration: .uncalibrated)
    }

    func testChainsAcrossPairsMergeIntoOneTrack() {
        // 0:5 - 1:7 - 2:1 and 0:2 - 2:4 : two tracks of lengths 3 and 2.
        let graph = MatchGraph(numImages: 3, edges: [edge(0, 1, [(5, 7)]), edge(1, 2, [(7, 1)]), edge(0, 2, [(2, 4)])])
        let tracks = TrackSet(graph: graph, keypointCounts: [10, 10, 10])
        XCTAssertEqual(tracks.tracks.count, 2)
        XCTAssertEqual(tracks.numInconsistent, 0)
        let long = tracks.tracks.first { $0.count == 3 }!
        XCTAssertEqual(long, [SIMD2(0, 5), SIMD2(1, 7), SIMD2(2, 1)])
        XCTAssertEqual(tracks.trackOfKeypoint[1][7], tracks.trackOfKeypoint[0][5])
        XCTAssertEqual(tracks.trackOfKeypoint[0][0], -1)
        XCTAssertEqual(tracks.meanTrackLength, 2.5, accuracy: 1e-12)
    }

    func testComponentWithTwoKeypointsOfOneImageIsDropped() {
        // 0:1 - 1:1 - 2:1 - 0:3 closes on image 0 twice: inconsistent.
        let graph = MatchGraph(numImages: 3, edges: [edge(0, 1, [(1, 1)]), edge(1, 2, [(1, 1)]), edge(0, 2, [(3, 1), (6, 6)])])
        let tracks = TrackSet(graph: graph, keypointCounts: [8, 8, 8])
        XCTAssertEqual(tracks.numInconsistent, 1)
        XCTAssertEqual(tracks.tracks, [[SIMD2(0, 6), SIMD2(2, 6)]])
        XCTAssertEqual(tracks.trackOfKeypoint[0][1], -1)
    }

    func testSeededRandomScenesRecoverEveryTrack() {
        // A synthetic scene: 200 points seen by random subsets of 6 images; each pair that shares
        // a point gets the match; tracks must come back exactly.
        var rng = SplitMix64(seed: 7)
        let numImages = 6, numPoints = 200
        var keypointOf = Array(repeating: [Int32](repeating: -1, count: numPoints), count: numImages)
        var counts = Array(repeating: 0, count: numImages)
        var truth: [[SIMD2<Int32>]] = []
        for p in 0..<numPoints {
            var track: [SIMD2<Int32>] = []
            for i in 0..<numImages where rng.next() % 2 == 0 {
                keypointOf[i][p] = Int32(counts[i])
                track.append(SIMD2(Int32(i), Int32(counts[i])))
                counts[i] += 1
            }
            if track.count >= 2 { truth.append(track) }
        }
        var edges: [MatchGraph.Edge] = []
        for a in 0..<numImages {
            for b in (a + 1)..<numImages {
                var pairs: [(Int32, Int32)] = []
                for p in 0..<numPoints where keypointOf[a][p] >= 0 && keypointOf[b][p] >= 0 {
                    pairs.append((keypointOf[a][p], keypointOf[b][p]))
                }
                edges.append(edge(a, b, pairs))
            }
        }
        let tracks = TrackSet(graph: MatchGraph(numImages: numImages, edges: edges), keypointCounts: counts)
        XCTAssertEqual(Set(tracks.tracks), Set(truth))
    }
}

