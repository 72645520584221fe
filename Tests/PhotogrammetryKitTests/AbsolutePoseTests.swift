import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class AbsolutePoseTests: XCTestCase {
    /// Correspondences of one image of a noisy scene with outliers.
    private func correspondences(noise: Double, outliers: Double, seed: UInt64 = 7)
        -> (scene: SyntheticScene, world: [SIMD3<Double>], normalized: [SIMD2<Double>], truth: [Bool]) {
        var options = SyntheticScene.Options()
        options.numImages = 4
        options.numPoints = 600
        options.pixelNoise = noise
        options.outlierRatio = outliers
        options.seed = seed
        let scene = SyntheticScene(options)
        let image = scene.reconstruction.images[ImageID(2)]!
        var world = [SIMD3<Double>](), normalized = [SIMD2<Double>](), truth = [Bool]()
        for (k, pointID) in image.point3DIDs.enumerated() {
            guard let pointID else { continue }
            world.append(scene.truePoints[pointID]!)
            normalized.append(scene.camera.normalized(image.points2D[k]))
            truth.append(!scene.isOutlier[image.id]![k])
        }
        return (scene, world, normalized, truth)
    }

    func testNoisyWithOutliers() throws {
        let (scene, world, normalized, truth) = correspondences(noise: 0.5, outliers: 0.3)
        var options = AbsolutePoseEstimator.Options()
        options.maxError = 3 / scene.camera.meanFocalLength
        let (pose, inliers) = try AbsolutePoseEstimator.estimate(pointsInWorld: world, normalizedPoints: normalized,
                                                                 options: options)
        let trueCamFromWorld = scene.reconstruction.images[ImageID(2)]!.camFromWorld!
        XCTAssertLessThan(Rotation.angleDegrees(between: pose.rotation, and: trueCamFromWorld.rotation), 0.1)
        XCTAssertLessThan(length(pose.centerInWorld - trueCamFromWorld.centerInWorld), 0.005 * scene.scale)
        let trueInliers = truth.filter { $0 }.count
        let found = zip(inliers, truth).filter { $0 && $1 }.count
        XCTAssertGreaterThan(Double(found) / Double(trueInliers), 0.95)
        XCTAssertGreaterThan(trueInliers, 200)
    }

    func testDeterministic() throws {
        let (_, world, normalized, _) = correspondences(noise: 1, outliers: 0.4, seed: 3)
        let a = try AbsolutePoseEstimator.estimate(pointsInWorld: world, normalizedPoints: normalized)
        let b = try AbsolutePoseEstimator.estimate(pointsInWorld: world, normalizedPoints: normalized)
        XCTAssertEqual(a.camFromWorld, b.camFromWorld)
        XCTAssertEqual(a.inliers, b.inliers)
    }

    func testTooFewPointsIsNotEnoughData() {
        let (_, world, normalized, _) = correspondences(noise: 0, outliers: 0)
        XCTAssertThrowsError(try AbsolutePoseEstimator.estimate(pointsInWorld: Array(world.prefix(6)),
                                                                normalizedPoints: Array(normalized.prefix(6)))) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .notEnoughData)
        }
    }

    func testMismatchedSizesAndBadOptionsAreInvalid() {
        XCTAssertThrowsError(try AbsolutePoseEstimator.estimate(pointsInWorld: [.zero], normalizedPoints: [])) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .invalidArgument)
        }
        var options = AbsolutePoseEstimator.Options()
        options.confidence = 1
        XCTAssertThrowsError(try options.validate())
    }
}
