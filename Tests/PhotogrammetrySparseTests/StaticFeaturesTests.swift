import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Static-feature detection on synthetic putative matches: a fixed camera over a turning object
/// (background keypoints sit still, object keypoints move) against a camera that moves.
final class StaticFeaturesTests: XCTestCase {
    /// Keypoints and putative matches of `frames` views: `background` keypoints per image at
    /// fixed pixels (plus noise) when the camera is fixed, shifted per frame when it moves; and
    /// `object` keypoints that rotate about the image centre's vertical axis by `step` degrees.
    struct Layout {
        var positions: [[SIMD2<Double>]] = []
        var pairs: [SIMD2<Int32>] = []
        var matches: [[SIMD2<Int32>]] = []
        let background: Int
    }

    func makeLayout(frames: Int, background: Int, object: Int, fixedCamera: Bool, seed: UInt64) -> Layout {
        var rng = SplitMix64(seed: seed)
        var layout = Layout(background: background)
        let backgroundPixels = (0..<background).map { _ in SIMD2(rng.uniform(0, 640), rng.uniform(0, 480)) }
        // Object points on a cylinder of radius 100 px about the vertical line x = 320.
        let objectPoints = (0..<object).map { _ in (angle: rng.uniform(0, 2 * .pi), height: rng.uniform(100, 380)) }
        for f in 0..<frames {
            let pan = fixedCamera ? SIMD2<Double>(0, 0) : SIMD2(Double(f) * 9, Double(f % 3) * 4)
            var points = backgroundPixels.map { $0 + pan + SIMD2(rng.gaussian(), rng.gaussian()) * 0.3 }
            let turn = Double(f) * 10 * .pi / 180
            points += objectPoints.map { p in SIMD2(320 + 100 * sin(p.angle + turn), p.height) }
            layout.positions.append(points)
        }
        for i in 0..<frames {
            for j in (i + 1)..<frames {
                layout.pairs.append(SIMD2(Int32(i), Int32(j)))
                var pairMatches = (0..<background).map { SIMD2(Int32($0), Int32($0)) }
                // Object points visible in both (front half in both frames).
                for k in 0..<object {
                    let a = objectPoints[k].angle
                    if cos(a + Double(i) * 10 * .pi / 180) > 0, cos(a + Double(j) * 10 * .pi / 180) > 0 {
                        pairMatches.append(SIMD2(Int32(background + k), Int32(background + k)))
                    }
                }
                layout.matches.append(pairMatches)
            }
        }
        return layout
    }

    func detect(_ layout: Layout, options: StaticFeatureOptions = StaticFeatureOptions()) -> StaticFeatures {
        StaticFeatures.detect(pairs: layout.pairs, matches: layout.matches, positions: layout.positions,
                              imageSizes: Array(repeating: SIMD2(640, 480), count: layout.positions.count),
                              options: options)
    }

    func testFixedCameraIsTurntableAndBackgroundIsDiscarded() {
        let layout = makeLayout(frames: 12, background: 300, object: 200, fixedCamera: true, seed: 7)
        let result = detect(layout)
        XCTAssertTrue(result.isTurntable)
        XCTAssertEqual(result.staticPairFraction, 1.0, accuracy: 1e-9)
        for image in 0..<12 {
            let staticBackground = (0..<300).filter { result.isStatic[image][$0] }.count
            let staticObject = (300..<500).filter { result.isStatic[image][$0] }.count
            XCTAssertGreaterThan(staticBackground, 295, "image \(image): background keypoints found static")
            XCTAssertLessThan(staticObject, 10, "image \(image): object keypoints kept")
        }
        // What is left of a pair is the object alone.
        let p = layout.pairs.firstIndex(of: SIMD2(0, 6))!
        let kept = result.filter(layout.matches[p], first: 0, second: 6)
        XCTAssertFalse(kept.isEmpty)
        XCTAssertTrue(kept.allSatisfy { $0.x >= 300 }, "only object matches survive")
        XCTAssertEqual(result.discardedCount, result.isStatic.joined().filter { $0 }.count)
    }

    func testGrownKeypointListsAreCoveredAndTheirStillOnesFound() {
        // Finer features append keypoints after the earlier ones: the first pass's static
        // features must cover them (filtering with the short lists would index past their end)
        // and find the appended background ones static too.
        let first = makeLayout(frames: 8, background: 200, object: 100, fixedCamera: true, seed: 12)
        let earlier = detect(first)
        XCTAssertTrue(earlier.isTurntable)
        var grown = first
        var rng = SplitMix64(seed: 13)
        let extraBackground = (0..<40).map { _ in SIMD2(rng.uniform(0, 640), rng.uniform(0, 480)) }
        for f in 0..<8 {
            grown.positions[f] += extraBackground.map { $0 + SIMD2(rng.gaussian(), rng.gaussian()) * 0.3 }
            grown.positions[f] += (0..<20).map { _ in SIMD2(rng.uniform(0, 640), rng.uniform(0, 480)) }
        }
        for p in grown.pairs.indices {
            grown.matches[p] += (0..<40).map { SIMD2(Int32(300 + $0), Int32(300 + $0)) }
        }
        let extended = earlier.extended(pairs: grown.pairs, matches: grown.matches, positions: grown.positions,
                                        imageSizes: Array(repeating: SIMD2(640, 480), count: 8),
                                        options: StaticFeatureOptions())
        XCTAssertEqual(extended.isStatic.map(\.count), grown.positions.map(\.count))
        for image in 0..<8 {
            XCTAssertEqual(Array(extended.isStatic[image][0..<300]), earlier.isStatic[image], "earlier keypoints as they were")
            XCTAssertEqual((300..<340).filter { extended.isStatic[image][$0] }.count, 40, "image \(image): appended background")
            XCTAssertEqual((340..<360).filter { extended.isStatic[image][$0] }.count, 0, "image \(image): unmatched additions")
        }
        let p = grown.pairs.firstIndex(of: SIMD2(0, 5))!
        let kept = extended.filter(grown.matches[p], first: 0, second: 5)
        XCTAssertTrue(kept.allSatisfy { $0.x >= 200 && $0.x < 300 }, "only object matches survive")

        let moving = StaticFeatures.none(keypointCounts: first.positions.map(\.count))
            .extended(pairs: grown.pairs, matches: grown.matches, positions: grown.positions,
                      imageSizes: Array(repeating: SIMD2(640, 480), count: 8), options: StaticFeatureOptions())
        XCTAssertEqual(moving.discardedCount, 0, "a moving camera has nothing static, old keypoints or new")
        XCTAssertEqual(moving.filter(grown.matches[p], first: 0, second: 5).count, grown.matches[p].count)
    }

    func testMovingCameraIsNotTurntable() {
        let layout = makeLayout(frames: 12, background: 300, object: 200, fixedCamera: false, seed: 8)
        let result = detect(layout)
        XCTAssertFalse(result.isTurntable)
        XCTAssertLessThan(result.staticPairFraction, 0.1)
        XCTAssertEqual(result.discardedCount, 0)
        XCTAssertEqual(result.filter(layout.matches[0], first: 0, second: 1).count, layout.matches[0].count)
    }

    func testPointsOnTheTurningAxisAreNotABackground() {
        // An orbiting camera sees points on its turning axis stand still: they image to one line.
        var layout = makeLayout(frames: 10, background: 80, object: 200, fixedCamera: true, seed: 10)
        var rng = SplitMix64(seed: 11)
        let axis = (0..<80).map { _ in SIMD2(rng.uniform(60, 580), 240 + rng.uniform(-3, 3)) }
        for f in 0..<10 {
            for k in 0..<80 { layout.positions[f][k] = axis[k] + SIMD2(rng.gaussian(), rng.gaussian()) * 0.3 }
        }
        let result = detect(layout)
        XCTAssertFalse(result.isTurntable, "static pair fraction \(result.staticPairFraction)")
        XCTAssertEqual(result.discardedCount, 0)
        XCTAssertLessThan(StaticFeatures.smallerStandardDeviation(axis), 3)
    }

    func testDisabledOrMixedSizesFindNothing() {
        let layout = makeLayout(frames: 6, background: 100, object: 50, fixedCamera: true, seed: 9)
        var options = StaticFeatureOptions()
        options.enabled = false
        XCTAssertFalse(detect(layout, options: options).isTurntable)
        var sizes = Array(repeating: SIMD2(640, 480), count: 6)
        sizes[3] = SIMD2(480, 640)
        let mixed = StaticFeatures.detect(pairs: layout.pairs, matches: layout.matches, positions: layout.positions,
                                          imageSizes: sizes, options: StaticFeatureOptions())
        XCTAssertFalse(mixed.isTurntable, "frames of different sizes cannot come from one fixed camera")
    }

    func testOptionsValidate() {
        var options = StaticFeatureOptions()
        XCTAssertNoThrow(try options.validate())
        options.maxDisplacementFraction = 0
        XCTAssertThrowsError(try options.validate())
    }
}
