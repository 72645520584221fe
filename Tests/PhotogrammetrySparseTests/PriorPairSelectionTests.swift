import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Pairs from pose priors: views that overlap are paired, far or opposed ones are not.
final class PriorPairSelectionTests: XCTestCase {
    /// A walk along a wall: 20 cameras 0.25 apart on x, looking at the wall along +y, with noisy
    /// priors (seeded); and one more at the first camera's place looking away from the wall.
    func walk(seed: UInt64) -> [PairSelection.PriorView?] {
        var rng = SplitMix64(seed: seed)
        var views: [PairSelection.PriorView?] = (0..<20).map { i in
            let centre = SIMD3(0.25 * Double(i), 0, 0) + 0.02 * rng.gaussian3()
            return PairSelection.PriorView(camFromWorld: SyntheticScene.lookAt(from: centre, to: centre + SIMD3(0, 2, 0) + 0.03 * rng.gaussian3()),
                                           halfTangents: SIMD2(0.5, 0.4))
        }
        views.append(PairSelection.PriorView(camFromWorld: SyntheticScene.lookAt(from: .zero, to: SIMD3(0, -2, 0)),
                                             halfTangents: SIMD2(0.5, 0.4)))
        return views
    }

    func testNeighboursArePairedAndFarViewsAreNot() throws {
        for seed: UInt64 in [1, 2, 3] {
            let pairs = Set(PairSelection.priorPairs(views: walk(seed: seed), neighbours: 4, minOverlap: 0.05))
            for i in 0..<19 {
                XCTAssertTrue(pairs.contains(SIMD2(Int32(i), Int32(i + 1))), "seed \(seed): \(i)-\(i + 1) missing")
            }
            for pair in pairs {
                XCTAssertLessThanOrEqual(pair.y - pair.x, 4, "seed \(seed): far pair \(pair)")
                XCTAssertFalse(pair.y == 20, "seed \(seed): the camera looking away shares no view: \(pair)")
            }
            XCTAssertLessThanOrEqual(pairs.count, 20 * 4)
        }
    }

    func testImagesWithoutPriorsAreMatchedWithAll() {
        var views = walk(seed: 1)
        views[5] = nil
        let pairs = Set(PairSelection.priorPairs(views: views, neighbours: 3, minOverlap: 0.05))
        for j in views.indices where j != 5 {
            XCTAssertTrue(pairs.contains(SIMD2(Int32(min(5, j)), Int32(max(5, j)))))
        }
    }

    func testOverlapIsSymmetricAndHighestForNeighbours() {
        let views = walk(seed: 4).compactMap { $0 }
        let overlap = PairSelection.priorOverlap(views)
        for i in views.indices {
            for j in views.indices { XCTAssertEqual(overlap[i][j], overlap[j][i], accuracy: 1e-12) }
        }
        XCTAssertGreaterThan(overlap[5][6], overlap[5][9])
        XCTAssertEqual(overlap[0][20], 0)
    }
}
