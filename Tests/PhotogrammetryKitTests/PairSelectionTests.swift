import XCTest
@testable import PhotogrammetryKit

/// Pair selection: exhaustive when small, n log n when large, never a pair twice.
final class PairSelectionTests: XCTestCase {
    func testSmallCapturesAreExhaustive() {
        let pairs = PairSelection.pairs(count: 12, options: PairSelectionOptions())
        XCTAssertEqual(pairs.count, 12 * 11 / 2)
        XCTAssertTrue(pairs.allSatisfy { $0.x < $0.y })
    }

    func testLargeCapturesGrowSubquadratically() {
        let options = PairSelectionOptions()
        let n1 = PairSelection.pairs(count: 200, options: options).count
        let n2 = PairSelection.pairs(count: 800, options: options).count
        XCTAssertLessThan(Double(n2) / Double(n1), 5.0, "4x the images must cost well under 16x the pairs")
        XCTAssertLessThan(n2, 800 * 799 / 2 / 20)
        let pairs = PairSelection.pairs(count: 800, options: options)
        XCTAssertEqual(Set(pairs).count, pairs.count, "no duplicates")
        XCTAssertTrue(pairs.contains(SIMD2(0, 799)), "the walk's ends are matched to close the loop")
        XCTAssertTrue(pairs.contains(SIMD2(100, 110)))
    }

    func testWalkIsSequentialWithLoopClosureEvenWhenSmall() {
        var options = PairSelectionOptions()
        options.walk = true
        let pairs = PairSelection.pairs(count: 60, options: options)
        let set = Set(pairs)
        XCTAssertEqual(set.count, pairs.count, "no duplicates")
        XCTAssertLessThan(pairs.count, 60 * 59 / 2 / 2, "a walk is not matched exhaustively")
        for i in 0..<50 { XCTAssertTrue(set.contains(SIMD2(Int32(i), Int32(i + 10))), "neighbours \(i), \(i + 10)") }
        XCTAssertTrue(set.contains(SIMD2(0, 59)) && set.contains(SIMD2(5, 55)), "the loop closes at the ends")
        XCTAssertTrue(set.contains(SIMD2(0, 20)) && set.contains(SIMD2(0, 40)), "pairs 2^k apart")
        XCTAssertFalse(set.contains(SIMD2(25, 56)), "nothing 31 apart mid-walk")
    }
}
