import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class RelativePoseTests: XCTestCase {
    /// Matches between images 1 and 2 of a scene, normalised, with their truth flags.
    private func matches(noise: Double, outliers: Double, seed: UInt64 = 5)
        -> (scene: SyntheticScene, x1: [SIMD2<Double>], x2: [SIMD2<Double>], truth: [Bool]) {
        var options = SyntheticScene.Options()
        options.numImages = 12
        options.numPoints = 500
        options.pixelNoise = noise
        options.outlierRatio = outliers
        options.seed = seed
        let scene = SyntheticScene(options)
        let rec = scene.reconstruction
        var x1 = [SIMD2<Double>](), x2 = [SIMD2<Double>](), truth = [Bool]()
        for point in rec.points3D.keys.sorted().map({ rec.points3D[$0]! }) {
            guard let a = point.track.first(where: { $0.imageID == ImageID(1) }),
                  let b = point.track.first(where: { $0.imageID == ImageID(2) }) else { continue }
            x1.append(scene.camera.normalized(rec.images[ImageID(1)]!.points2D[a.point2DIndex]))
            x2.append(scene.camera.normalized(rec.images[ImageID(2)]!.points2D[b.point2DIndex]))
            truth.append(!scene.isOutlier[ImageID(1)]![a.point2DIndex] && !scene.isOutlier[ImageID(2)]![b.point2DIndex])
        }
        return (scene, x1, x2, truth)
    }

    func testNoisyWithOutliers() throws {
        let (scene, x1, x2, truth) = matches(noise: 0.5, outliers: 0.2)
        var options = RelativePoseEstimator.Options()
        options.maxError = 2 / scene.camera.meanFocalLength
        let (pose, inliers) = try RelativePoseEstimator.estimate(normalizedPoints1: x1, normalizedPoints2: x2,
                                                                 options: options)
        let p1 = scene.reconstruction.images[ImageID(1)]!.camFromWorld!
        let p2 = scene.reconstruction.images[ImageID(2)]!.camFromWorld!
        let truePose = p2 * p1.inverse
        XCTAssertEqual(length(pose.translation), 1, accuracy: 1e-9)
        XCTAssertLessThan(Rotation.angleDegrees(between: pose.rotation, and: truePose.rotation), 0.2)
        let cosine = dot(normalize(truePose.translation), pose.translation)
        XCTAssertLessThan(acos(min(1, cosine)) * 180 / .pi, 1.0)
        let recall = Double(zip(inliers, truth).filter { $0 && $1 }.count) / Double(truth.filter { $0 }.count)
        XCTAssertGreaterThan(recall, 0.95)
    }

    func testDeterministicForSeed() throws {
        let (_, x1, x2, _) = matches(noise: 1, outliers: 0.3, seed: 9)
        let a = try RelativePoseEstimator.estimate(normalizedPoints1: x1, normalizedPoints2: x2)
        let b = try RelativePoseEstimator.estimate(normalizedPoints1: x1, normalizedPoints2: x2)
        XCTAssertEqual(a.cam2FromCam1, b.cam2FromCam1)
        XCTAssertEqual(a.inliers, b.inliers)
    }

    func testTooFewMatches() {
        XCTAssertThrowsError(try RelativePoseEstimator.estimate(normalizedPoints1: [.zero, .one],
                                                                normalizedPoints2: [.zero, .one])) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .notEnoughData)
        }
    }
}
