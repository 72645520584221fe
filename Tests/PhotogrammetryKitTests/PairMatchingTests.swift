import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The incremental entry point: a second pass matches only new pairs into the same graph.
final class PairMatchingTests: XCTestCase {
    /// Five crops of one blob texture, 90 px apart: every pair overlaps.
    private func crops() throws -> [FeatureSet] {
        let canvas = SyntheticGrayImage.blobs(width: 400 + 4 * 90, height: 300, count: 1500, seed: 31)
        let directory = try makeBridgeTestDirectory(self)
        return try (0..<5).map { i in
            let url = directory.appendingPathComponent("crop\(i).pgm")
            try canvas.cropped(x: 90 * i, y: 0, width: 400, height: 300).writePGM(to: url)
            return try FeatureSet.extract(imageURL: url)
        }
    }

    func testExtendMatchesOnlyNewPairsAndKeepsExistingEdges() throws {
        let features = try crops()
        let calibration = [Matrix3?](repeating: nil, count: features.count)
        let options = MatchingOptions()
        // A first pass that tried a chain only: 0-1, 1-2, 2-3, 3-4.
        let chain = (0..<4).map { SIMD2(Int32($0), Int32($0 + 1)) }
        let first = try PairMatching.match(chain, features: features, calibration: calibration, staticFeatures: nil,
                                           options: options, threads: 2, progress: nil)
        XCTAssertEqual(first.graph.edges.count, 4)
        XCTAssertEqual(first.tried, Set(chain))

        let transitive = PairSelection.transitivePairs(graph: first.graph, tried: first.tried)
        XCTAssertEqual(transitive, [SIMD2(0, 2), SIMD2(1, 3), SIMD2(2, 4)])
        // Already-tried pairs (and one given reversed) among the new ones are not matched again.
        let second = try PairMatching.extend(first, pairs: transitive + [SIMD2(1, 0), SIMD2(3, 4)], features: features,
                                             calibration: calibration, options: options, threads: 2, progress: nil)
        XCTAssertEqual(second.graph.edges.count, 7)
        XCTAssertEqual(second.tried, Set(chain + transitive))
        for (old, kept) in zip(first.graph.edges, second.graph.edges) {
            XCTAssertEqual(old.first, kept.first)
            XCTAssertEqual(old.second, kept.second)
            XCTAssertEqual(old.matches, kept.matches, "existing edges are kept as they were")
        }
        let added = second.graph.edges.dropFirst(4)
        XCTAssertEqual(Set(added.map { SIMD2(Int32($0.first), Int32($0.second)) }), Set(transitive))
        XCTAssert(added.allSatisfy { $0.matches.count > 100 }, "crops 180 px apart still share half their view")

        // The second-pass entry point without a model matches the same transitive pairs.
        let rematched = try PairMatching.rematch(first, reconstruction: nil, features: features, calibration: calibration,
                                                 options: options, threads: 1, progress: nil)
        XCTAssertEqual(rematched.tried, second.tried)
        XCTAssertEqual(rematched.graph.edges.map(\.matches.count), second.graph.edges.map(\.matches.count))

        // Nothing new: the graph does not change.
        let third = try PairMatching.extend(second, pairs: transitive, features: features, calibration: calibration,
                                            options: options, threads: 2, progress: nil)
        XCTAssertEqual(third.graph.edges.count, 7)
        XCTAssertEqual(third.tried, second.tried)
    }
}
