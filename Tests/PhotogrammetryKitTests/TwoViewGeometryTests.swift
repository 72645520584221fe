import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A row-major 3x3 matrix, just enough algebra for synthetic two-view scenes.
private struct Matrix3 {
    var m: [Double]

    static let identity = Matrix3(m: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// Rotation by `angle` radians about `axis` (Rodrigues).
    static func rotation(axis: SIMD3<Double>, angle: Double) -> Matrix3 {
        let k = axis / (axis * axis).sum().squareRoot()
        let c = cos(angle), s = sin(angle), v = 1 - c
        let row0: [Double] = [c + k.x * k.x * v, k.x * k.y * v - k.z * s, k.x * k.z * v + k.y * s]
        let row1: [Double] = [k.y * k.x * v + k.z * s, c + k.y * k.y * v, k.y * k.z * v - k.x * s]
        let row2: [Double] = [k.z * k.x * v - k.y * s, k.z * k.y * v + k.x * s, c + k.z * k.z * v]
        return Matrix3(m: row0 + row1 + row2)
    }

    static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        var out = SIMD3<Double>()
        for row in 0..<3 {
            let terms: [Double] = [a.m[3 * row] * v.x, a.m[3 * row + 1] * v.y, a.m[3 * row + 2] * v.z]
            out[row] = terms.reduce(0, +)
        }
        return out
    }

    var transposed: Matrix3 { Matrix3(m: (0..<9).map { m[3 * ($0 % 3) + $0 / 3] }) }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var out = [Double](repeating: 0, count: 9)
        for i in 0..<9 {
            for k in 0..<3 { out[i] += a.m[3 * (i / 3) + k] * b.m[3 * k + i % 3] }
        }
        return Matrix3(m: out)
    }

    /// Angle of this rotation, in degrees.
    var angleDeg: Double {
        let cosine: Double = (m[0] + m[4] + m[8] - 1) / 2
        return acos(max(-1, min(1, cosine))) * 180 / .pi
    }
}

private func K(_ focal: Double) -> [Double] { [focal, 0, 640, 0, focal, 480, 0, 0, 1] }

/// Correspondences of a seeded random scene seen by two 1280x960 cameras.
private struct SyntheticPair {
    var points1: [SIMD2<Double>] = []
    var points2: [SIMD2<Double>] = []
    var isInlier: [Bool] = []
    let rotation: Matrix3
    let translation: SIMD3<Double>

    enum Scene { case general, plane, pureRotation }

    init(count: Int, outlierRatio: Double, noise: Double = 0.5, scene: Scene = .general,
         focal1: Double = 1000, focal2: Double = 1000, seed: UInt64 = 7) {
        var rng = BridgeTestRNG(seed: seed)
        rotation = Matrix3.rotation(axis: SIMD3(0.2, 1, 0.1), angle: 0.15)
        let center2 = scene == .pureRotation ? SIMD3<Double>(0, 0, 0) : SIMD3(1.0, 0.1, 0.05)
        translation = -(rotation * center2)
        func project(_ X: SIMD3<Double>, _ f: Double) -> SIMD2<Double> {
            SIMD2(f * X.x / X.z + 640, f * X.y / X.z + 480)
        }
        func inside(_ p: SIMD2<Double>) -> Bool { p.x >= 0 && p.x < 1280 && p.y >= 0 && p.y < 960 }
        while points1.count < count {
            let x = Double.random(in: -3...3, using: &rng), y = Double.random(in: -2...2, using: &rng)
            // The plane is tilted (z grows with x) so that it is not fronto-parallel.
            let z = scene == .plane ? 6 + 0.3 * x : Double.random(in: 3...7, using: &rng)
            let X = SIMD3(x, y, z)
            let p1 = project(X, focal1), p2 = project(rotation * X + translation, focal2)
            guard inside(p1), inside(p2) else { continue }
            let outlier = Double.random(in: 0..<1, using: &rng) < outlierRatio
            let q2 = outlier ? SIMD2(Double.random(in: 0..<1280, using: &rng),
                                     Double.random(in: 0..<960, using: &rng)) : p2
            points1.append(p1 + noise * SIMD2(rng.gaussian(), rng.gaussian()))
            points2.append(q2 + noise * SIMD2(rng.gaussian(), rng.gaussian()))
            isInlier.append(!outlier)
        }
    }

    /// Share of true inliers marked as inliers.
    func recall(_ mask: [Bool]) -> Double {
        let found = zip(isInlier, mask).filter { $0 && $1 }.count
        return Double(found) / Double(isInlier.filter { $0 }.count)
    }
}

final class TwoViewGeometryTests: XCTestCase {
    func testFundamentalRecoversTheInliers() throws {
        let pair = SyntheticPair(count: 600, outlierRatio: 0.2)
        let geometry = try TwoViewEstimator.estimate(points1: pair.points1, points2: pair.points2)
        XCTAssertEqual(geometry.configuration, .uncalibrated)
        XCTAssertEqual(geometry.numEInliers, 0)
        XCTAssertGreaterThan(pair.recall(geometry.inlierMask), 0.95)
        let falsePositives = zip(pair.isInlier, geometry.inlierMask).filter { !$0 && $1 }.count
        XCTAssertLessThan(falsePositives, 12, "outliers near epipolar lines only")
        XCTAssertEqual(geometry.inlierMask.filter { $0 }.count, geometry.numInliers)
    }

    func testEssentialRecoversTheRelativePose() throws {
        let pair = SyntheticPair(count: 600, outlierRatio: 0.2)
        let geometry = try TwoViewEstimator.estimate(
            points1: pair.points1, points2: pair.points2, K1: K(1000), K2: K(1000))
        XCTAssertEqual(geometry.configuration, .calibrated)
        XCTAssertGreaterThan(pair.recall(geometry.inlierMask), 0.95)
        let rotationError = (Matrix3(m: geometry.rotation) * pair.rotation.transposed).angleDeg
        XCTAssertLessThan(rotationError, 0.5)
        let truth = pair.translation / (pair.translation * pair.translation).sum().squareRoot()
        let cosine = (geometry.translation * truth).sum()
        XCTAssertLessThan(acos(min(1, cosine)) * 180 / .pi, 2)
        XCTAssertGreaterThan(geometry.medianTriangulationAngleDeg, 2)
    }

    func testPlanarSceneIsPlanar() throws {
        let pair = SyntheticPair(count: 400, outlierRatio: 0.2, scene: .plane)
        let calibrated = try TwoViewEstimator.estimate(
            points1: pair.points1, points2: pair.points2, K1: K(1000), K2: K(1000))
        XCTAssertEqual(calibrated.configuration, .planar)
        XCTAssertGreaterThan(pair.recall(calibrated.inlierMask), 0.95)
        let rotationError = (Matrix3(m: calibrated.rotation) * pair.rotation.transposed).angleDeg
        XCTAssertLessThan(rotationError, 1)
        let uncalibrated = try TwoViewEstimator.estimate(points1: pair.points1, points2: pair.points2)
        XCTAssertEqual(uncalibrated.configuration, .planarOrPanoramic)
    }

    func testPureRotationIsPanoramic() throws {
        let pair = SyntheticPair(count: 400, outlierRatio: 0.2, scene: .pureRotation)
        let geometry = try TwoViewEstimator.estimate(
            points1: pair.points1, points2: pair.points2, K1: K(1000), K2: K(1000))
        XCTAssertEqual(geometry.configuration, .panoramic)
        XCTAssertEqual(geometry.medianTriangulationAngleDeg, 0)
    }

    func testBougnouxFocalLengthsFromEstimatedF() throws {
        let pair = SyntheticPair(count: 600, outlierRatio: 0.2, focal1: 1000, focal2: 1150)
        let geometry = try TwoViewEstimator.estimate(points1: pair.points1, points2: pair.points2)
        let focal = try TwoViewEstimator.focalLengths(
            fundamental: geometry.F, principalPoint1: SIMD2(640, 480), principalPoint2: SIMD2(640, 480))
        XCTAssertEqual(focal.focal1, 1000, accuracy: 50)
        XCTAssertEqual(focal.focal2, 1150, accuracy: 57.5)
    }

    func testSeededResultsAreReproducibleAndSmallInputsDegenerate() throws {
        let pair = SyntheticPair(count: 300, outlierRatio: 0.3)
        var options = TwoViewOptions()
        options.seed = 42
        let first = try TwoViewEstimator.estimate(
            points1: pair.points1, points2: pair.points2, K1: K(1000), K2: K(1000), options: options)
        let second = try TwoViewEstimator.estimate(
            points1: pair.points1, points2: pair.points2, K1: K(1000), K2: K(1000), options: options)
        XCTAssertEqual(first, second)
        let few = try TwoViewEstimator.estimate(
            points1: Array(pair.points1.prefix(10)), points2: Array(pair.points2.prefix(10)))
        XCTAssertEqual(few.configuration, .degenerate)
        XCTAssertThrowsError(try TwoViewEstimator.estimate(points1: pair.points1, points2: []))
    }
}
