import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Half-turn twins of a symmetric pattern that dominate a pair are dropped when the other pairs
/// say how its images turned; every other pair keeps all its matches.
final class OrientationConsistencyTests: XCTestCase {
    /// Turns spread as true matches spread (`spread` degrees either side of `centre`).
    func spread(_ count: Int, around centre: Double, by spread: Double, seed: UInt64) -> [Double] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in centre + Double.random(in: -spread ... spread, using: &random) }
    }

    /// Matches i <-> i of one pair with the given turns, as keypoint angles in radians.
    func pair(_ turns: [Double]) -> (matches: [SIMD2<Int32>], angles1: [Float], angles2: [Float]) {
        var random = SeededGenerator(seed: 3)
        let angles1 = turns.map { _ in Float(Double.random(in: -Double.pi ... Double.pi, using: &random)) }
        let angles2 = zip(angles1, turns).map { $0 + Float($1 * .pi / 180) }
        return (turns.indices.map { SIMD2(Int32($0), Int32($0)) }, angles1, angles2)
    }

    /// What the filter keeps of the third pair of images 0-1, 1-2, 0-2 with these turns.
    func keptOfThirdPair(_ turnsOfPairs: [[Double]]) -> (expected: Double?, kept: Set<Int>) {
        let pairs: [SIMD2<Int32>] = [SIMD2(0, 1), SIMD2(1, 2), SIMD2(0, 2)]
        let options = OrientationConsistency()
        let expected = options.expectedTurns(pairs: pairs, turns: turnsOfPairs, numImages: 3)
        let matches = turnsOfPairs[2].indices.map { SIMD2(Int32($0), Int32($0)) }
        let kept = options.filter(matches, turns: turnsOfPairs[2], expected: expected[2])
        return (expected[2], Set(kept.map { Int($0.x) }))
    }

    func testTurnsComeFromKeypointAngles() {
        let (matches, angles1, angles2) = pair([10, -170, 90])
        let turns = OrientationConsistency.turns(matches, angles1: angles1, angles2: angles2)
        for (turn, truth) in zip(turns, [10.0, -170, 90]) {
            XCTAssertEqual(OrientationConsistency.wrapped(turn - truth), 0, accuracy: 1e-3)
        }
    }

    func testTwinsThatOutnumberAPairsTrueMatchesAreDroppedByTheOtherPairs() {
        // Images 0, 1, 2 turned by 0°, 10° and 25°; pairs 0-1 and 1-2 mostly true, pair 0-2 a
        // wall whose half-turn twins are 150 against 40 true matches.
        let (expected, kept) = keptOfThirdPair([
            spread(300, around: 10, by: 15, seed: 21) + spread(20, around: 190, by: 10, seed: 22),
            spread(280, around: 15, by: 15, seed: 23),
            spread(40, around: 25, by: 15, seed: 24) + spread(150, around: 205, by: 15, seed: 25),
        ])
        XCTAssertEqual(expected!, 25, accuracy: 5)
        XCTAssertEqual(kept, Set(0..<40))
    }

    func testTheSameAcrossTheWrap() {
        // Image 2 upside down against image 0: its true turns straddle +-180°, its twins 0°.
        let (expected, kept) = keptOfThirdPair([
            spread(300, around: 100, by: 15, seed: 26),
            spread(280, around: 78, by: 15, seed: 27),
            spread(40, around: 178, by: 15, seed: 28) + spread(150, around: -2, by: 15, seed: 29),
        ])
        XCTAssertEqual(OrientationConsistency.wrapped(expected! - 178), 0, accuracy: 5)
        XCTAssertEqual(kept, Set(0..<40))
        XCTAssertEqual(OrientationConsistency.wrapped(OrientationConsistency.dominantTurn(
            spread(200, around: 178, by: 30, seed: 7))!.turn - 178), 0, accuracy: 5)
    }

    func testPairsTheOtherPairsAgreeWithKeepEverything() {
        // A turntable seen from above: the sides barely turn, the top turns with the table, and
        // an object's top seen from opposite sides of an orbit turns by nearly a half turn.
        let (expected, kept) = keptOfThirdPair([
            spread(300, around: 0, by: 15, seed: 31),
            spread(300, around: 0, by: 15, seed: 32),
            spread(120, around: 0, by: 15, seed: 33) + spread(80, around: 70, by: 15, seed: 34)
                + spread(60, around: 170, by: 10, seed: 35),
        ])
        XCTAssertNil(expected)
        XCTAssertEqual(kept.count, 260)
    }

    func testALoopThatDoesNotCloseKeepsEachPairsOwnMatches() {
        // Views all around a room: turns add up to the loop's solid angle, not to zero. Pair
        // 0-2 turned by 20° where 0-1 and 1-2 say 80°: close enough to keep it as it is.
        let (expected, kept) = keptOfThirdPair([
            spread(300, around: 40, by: 15, seed: 36),
            spread(300, around: 40, by: 15, seed: 37),
            spread(200, around: 20, by: 15, seed: 38) + spread(30, around: 0, by: 180, seed: 39),
        ])
        XCTAssertNil(expected)
        XCTAssertEqual(kept.count, 230)
    }

    func testOffAndOutOfRange() {
        var off = OrientationConsistency()
        off.maxDeviationDeg = 0
        let turns = [spread(50, around: 0, by: 5, seed: 10), spread(50, around: 0, by: 5, seed: 11),
                     spread(20, around: 0, by: 5, seed: 12) + spread(80, around: 180, by: 5, seed: 13)]
        XCTAssertEqual(off.expectedTurns(pairs: [SIMD2(0, 1), SIMD2(1, 2), SIMD2(0, 2)], turns: turns, numImages: 3),
                       [nil, nil, nil])
        off.maxDeviationDeg = 200
        XCTAssertThrowsError(try off.validate())
    }
}
