import XCTest
@testable import PhotogrammetryKit

/// A symmetric pattern's twins (keypoints turned by a half turn against the rest of the pair) are dropped before verification, also where they outnumber the true matches of a
/// pair; true matches survive their spread and the wrap.
final class OrientationConsistencyTests: XCTestCase {
    /// The indices of the matches of one pair the filter keeps, the pair alone.
    func kept(_ turns: [Double], options: OrientationConsistency = OrientationConsistency()) -> Set<Int> {
        let (matches, angles1, angles2) = pair(turns)
        let measured = OrientationConsistency.turns(matches, angles1: angles1, angles2: angles2)
        let expected = options.expectedTurns(pairs: [SIMD2(0, 1)], turns: [measured], numImages: 2)
        return Set(options.filter(matches, turns: measured, expected: expected[0]).map { Int($0.x) })
    }

    /// Matches i <-> i whose keypoint in the second image turned by `turns[i]` degrees.
    func pair(_ turns: [Double]) -> (matches: [SIMD2<Int32>], angles1: [Float], angles2: [Float]) {
        var random = SeededGenerator(seed: 3)
        let angles1 = turns.map { _ in Float(Double.random(in: -Double.pi ... Double.pi, using: &random)) }
        let angles2 = zip(angles1, turns).map { $0 + Float($1 * .pi / 180) }
        return (turns.indices.map { SIMD2(Int32($0), Int32($0)) }, angles1, angles2)
    }

    /// Turns spread as true matches spread (`spread` degrees either side of `centre`).
    func spread(_ count: Int, around centre: Double, by spread: Double, seed: UInt64) -> [Double] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in centre + Double.random(in: -spread ... spread, using: &random) }
    }

    func testHalfTurnTwinsAreDroppedAndTrueMatchesKept() {
        let truth = spread(250, around: 12, by: 25, seed: 1)
        let twins = spread(160, around: 192, by: 20, seed: 2)
        XCTAssertEqual(kept(truth + twins), Set(0..<truth.count))
    }

    func testATurningObjectsTopAndSidesAreBothKept() {
        // A turntable seen from above: the sides barely turn, the top turns with the table.
        let sides = spread(120, around: 0, by: 15, seed: 4)
        let top = spread(80, around: 70, by: 15, seed: 5)
        let twins = spread(40, around: 180, by: 15, seed: 6)
        XCTAssertEqual(kept(sides + top + twins), Set(0..<(sides.count + top.count)))
    }

    func testDominantTurnAcrossTheWrapKeepsBothSides() {
        // A camera turned upside down: true turns straddle +-180.
        let truth = spread(200, around: 178, by: 30, seed: 7)
        let outliers = spread(20, around: 0, by: 40, seed: 8)
        XCTAssertEqual(kept(truth + outliers), Set(0..<truth.count))
        XCTAssertEqual(OrientationConsistency.wrapped(OrientationConsistency.dominantTurn(truth)!.turn - 178), 0, accuracy: 5)
    }

    func testTwinsThatOutnumberAPairsTrueMatchesAreDroppedByTheOtherPairs() {
        // Images 0, 1, 2 turned by 0°, 10° and 25°; pairs 0-1 and 1-2 mostly true, pair 0-2 a
        // wall whose half-turn twins are 150 against 40 true matches.
        let turnsOfPairs = [
            spread(300, around: 10, by: 15, seed: 21) + spread(20, around: 190, by: 10, seed: 22),
            spread(280, around: 15, by: 15, seed: 23),
            spread(40, around: 25, by: 15, seed: 24) + spread(150, around: 205, by: 15, seed: 25),
        ]
        let pairs: [SIMD2<Int32>] = [SIMD2(0, 1), SIMD2(1, 2), SIMD2(0, 2)]
        let options = OrientationConsistency()
        let expected = options.expectedTurns(pairs: pairs, turns: turnsOfPairs, numImages: 3)
        XCTAssertEqual(expected[2]!, 25, accuracy: 5)
        let matches = turnsOfPairs[2].indices.map { SIMD2(Int32($0), Int32($0)) }
        let survivors = options.filter(matches, turns: turnsOfPairs[2], expected: expected[2])
        XCTAssertEqual(Set(survivors.map { Int($0.x) }), Set(0..<40))
        // Alone, the pair would keep its twins.
        XCTAssertEqual(kept(turnsOfPairs[2].map { $0 - 0 }).count, 150)
    }

    func testALoopThatDoesNotCloseKeepsEachPairsOwnTurn() {
        // Views all around a room: turns add up to the loop's solid angle, not to zero. Pair
        // 0-2 turned by 20° where 0-1 and 1-2 say 80°; it has no cluster near 80°, so it keeps its own.
        let turnsOfPairs = [
            spread(300, around: 40, by: 15, seed: 31),
            spread(300, around: 40, by: 15, seed: 32),
            spread(200, around: 20, by: 15, seed: 33) + spread(30, around: 0, by: 180, seed: 34),
        ]
        let pairs: [SIMD2<Int32>] = [SIMD2(0, 1), SIMD2(1, 2), SIMD2(0, 2)]
        let expected = OrientationConsistency().expectedTurns(pairs: pairs, turns: turnsOfPairs, numImages: 3)
        XCTAssertEqual(expected[2]!, 20, accuracy: 5)
    }

    func testOffOrTooFewMatchesKeepsEverything() {
        XCTAssertEqual(kept(spread(10, around: 0, by: 5, seed: 9) + [180, 180]).count, 12)
        var off = OrientationConsistency()
        off.maxDeviationDeg = 0
        XCTAssertEqual(kept(spread(50, around: 0, by: 5, seed: 10) + spread(30, around: 180, by: 5, seed: 11), options: off).count, 80)
        off.maxDeviationDeg = 200
        XCTAssertThrowsError(try off.validate())
    }
}
