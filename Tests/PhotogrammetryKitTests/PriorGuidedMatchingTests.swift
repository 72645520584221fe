import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Matching guided by pose priors: F from two prior views, the band measured on a sample of
/// pairs, and templeRing-12 matched inside it keeping what full matching verifies.
final class PriorGuidedMatchingTests: XCTestCase {
    func testPriorFundamentalHoldsForProjectedPoints() throws {
        let k = Matrix3(rows: SIMD3(800, 0, 320), SIMD3(0, 780, 240), SIMD3(0, 0, 1))
        let a = PairSelection.PriorView(camFromWorld: SyntheticScene.lookAt(from: SIMD3(0, 0, -3), to: .zero),
                                        halfTangents: SIMD2(0.4, 0.3), calibration: k)
        let b = PairSelection.PriorView(camFromWorld: SyntheticScene.lookAt(from: SIMD3(1.2, 0.3, -2.8), to: SIMD3(0.1, 0, 0)),
                                        halfTangents: SIMD2(0.4, 0.3), calibration: k)
        let f = try XCTUnwrap(PriorGuidance.fundamentalMatrix(from: a, to: b))
        func project(_ view: PairSelection.PriorView, _ x: SIMD3<Double>) -> SIMD2<Double> {
            let p = k * view.camFromWorld.apply(x)
            return SIMD2(p.x / p.z, p.y / p.z)
        }
        var rng = SplitMix64(seed: 3)
        for _ in 0..<50 {
            let x = 0.5 * rng.gaussian3()
            XCTAssertLessThan(PriorGuidance.epipolarDistance(f, project(a, x), project(b, x)), 1e-6)
        }
        // A point moved 5 px off its epipolar line in b is at least 5 px from it (the larger side counts).
        let x1 = project(a, SIMD3(0.1, 0.2, 0.3)), x2 = project(b, SIMD3(0.1, 0.2, 0.3))
        let line = SIMD2(f[0] * x1.x + f[1] * x1.y + f[2], f[3] * x1.x + f[4] * x1.y + f[5])
        let moved = PriorGuidance.epipolarDistance(f, x1, x2 + 5 * line / hypot(line.x, line.y))
        XCTAssertGreaterThanOrEqual(moved, 5 - 1e-6)
        XCTAssertLessThan(moved, 10)
        // No baseline, no F.
        XCTAssertNil(PriorGuidance.fundamentalMatrix(from: a, to: a))
    }

    /// templeRing-12's ground truth as priors, `degrees` and `metres` off per axis.
    func templeRingPriors(degrees: Double, metres: Double, seed: UInt64)
        throws -> (features: [FeatureSet], views: [PairSelection.PriorView?]) {
        let dataset = Repository.datasets.appendingPathComponent("templeRing-12")
        let truth = try Reconstruction.readColmapText(from: dataset.appendingPathComponent("gt_sparse"))
        let images = truth.images.values.sorted { $0.name < $1.name }
        let features = try images.map { try FeatureSet.extract(imageURL: dataset.appendingPathComponent("images/\($0.name)")) }
        var rng = SplitMix64(seed: seed)
        let views: [PairSelection.PriorView?] = images.map { image in
            let camera = truth.cameras[image.cameraID]!
            let pose = image.camFromWorld!
            let rotation = Rotation.matrix(angleAxis: (degrees * .pi / 180) * rng.gaussian3()) * pose.rotation
            let centre = pose.centerInWorld + metres * rng.gaussian3()
            let f = camera.focalLengths
            return PairSelection.PriorView(camFromWorld: Rigid3(rotation: rotation, translation: -(rotation * centre)),
                                           halfTangents: SIMD2(Double(camera.width) / (2 * f.x), Double(camera.height) / (2 * f.y)),
                                           calibration: camera.calibrationMatrix)
        }
        return (features, views)
    }

    /// Exact priors: the verified matches lie on the priors' lines within the keypoints' noise,
    /// so the band is its floor.
    func testExactPriorsGiveTheNarrowestBand() throws {
        let (features, views) = try templeRingPriors(degrees: 0, metres: 0, seed: 1)
        let pairs = PairSelection.priorPairs(views: views, neighbours: 6, minOverlap: 0.05)
        let options = MatchingOptions()
        let guidance = PriorGuidance.measure(pairs: pairs, views: views, features: features,
                                             positions: features.map { $0.keypointPositions() },
                                             calibration: Array(repeating: nil, count: views.count), options: options, threads: 2)
        XCTAssertEqual(try XCTUnwrap(guidance.bandPixels), options.priorGuidance.minBandInThresholds * options.twoView.maxErrorPixels)
    }

    /// Priors 0.5° and 5 mm off per axis (ARKit's 1° and 2 cm at the scale of a room; the
    /// cameras stand 0.5 from the temple): the band comes out tens of pixels wide, and the pairs
    /// matched inside it verify as many matches as full matching does.
    func testTempleRingMatchedInsideThePriorsBand() throws {
        let (features, views) = try templeRingPriors(degrees: 0.5, metres: 0.005, seed: 5)
        let pairs = PairSelection.priorPairs(views: views, neighbours: 6, minOverlap: 0.05)
        let options = MatchingOptions()
        let calibration = [Matrix3?](repeating: nil, count: views.count)
        let guidance = PriorGuidance.measure(pairs: pairs, views: views, features: features,
                                             positions: features.map { $0.keypointPositions() }, calibration: calibration,
                                             options: options, threads: 2)
        let band = try XCTUnwrap(guidance.bandPixels)
        XCTAssertGreaterThan(band, options.priorGuidance.minBandInThresholds * options.twoView.maxErrorPixels)
        XCTAssertEqual(guidance.putative.count, PriorGuidance.minSamplePairs)
        XCTAssertEqual(guidance.fundamental.compactMap { $0 }.count, pairs.count - PriorGuidance.minSamplePairs)

        let full = try PairMatching.match(pairs, features: features, calibration: calibration, staticFeatures: nil,
                                          options: options, threads: 2, progress: nil)
        let guided = try PairMatching.match(pairs, features: features, calibration: calibration, staticFeatures: nil,
                                            options: options, threads: 2, progress: nil, guidance: guidance)
        func inliers(_ result: PairMatching.Result) -> [SIMD2<Int>: Int] {
            Dictionary(uniqueKeysWithValues: result.graph.edges.map { (SIMD2($0.first, $0.second), $0.matches.count) })
        }
        let fullInliers = inliers(full), guidedInliers = inliers(guided)
        XCTAssertGreaterThan(fullInliers.count, pairs.count / 2)
        for (pair, count) in fullInliers where count >= 50 {
            XCTAssertGreaterThanOrEqual(Double(guidedInliers[pair] ?? 0), 0.9 * Double(count), "pair \(pair)")
        }
        XCTAssertGreaterThanOrEqual(Double(guidedInliers.values.reduce(0, +)), 0.97 * Double(fullInliers.values.reduce(0, +)))
    }

    /// Priors that disagree with the images (every pose turned by 20° per axis): the band the
    /// sample measures is too wide to save anything, and every pair is matched in full.
    func testWrongPriorsGuideNothing() throws {
        let (features, views) = try templeRingPriors(degrees: 20, metres: 0, seed: 9)
        let pairs = PairSelection.exhaustivePairs(count: views.count)
        let guidance = PriorGuidance.measure(pairs: pairs, views: views, features: features,
                                             positions: features.map { $0.keypointPositions() },
                                             calibration: Array(repeating: nil, count: views.count),
                                             options: MatchingOptions(), threads: 2)
        XCTAssertNil(guidance.bandPixels)
        XCTAssertTrue(guidance.fundamental.allSatisfy { $0 == nil })
        XCTAssertEqual(guidance.putative.count, PriorGuidance.minSamplePairs, "the sample's matches are kept, not matched twice")
    }
}
