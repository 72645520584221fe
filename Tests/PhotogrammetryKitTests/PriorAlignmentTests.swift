import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A model in its own frame and scale put into the frame of noisy, drifting priors with one bad
/// prior: the result is in the priors' frame and scale, the images keep its shape, the bad prior
/// is not obeyed.
final class PriorAlignmentTests: XCTestCase {
    func testModelTakesThePriorsFrameAndScale() throws {
        var options = SyntheticScene.Options()
        options.numImages = 14
        options.numPoints = 500
        options.pixelNoise = 0.5
        options.ringArc = 1.5 * .pi
        for seed: UInt64 in [3, 4] {
            options.seed = seed
            let scene = SyntheticScene(options)
            let truth = scene.reconstruction
            // SfM's model: the truth in a frame of its own (scale 0.37, turned, shifted).
            var model = truth
            model.transform(by: Similarity3(scale: 0.37, rotation: Rotation.matrix(angleAxis: SIMD3(0.3, -1.1, 0.4)),
                                            translation: SIMD3(2, -1, 0.5)))
            // Priors: the truth with 5 cm and 1° of noise per axis, 2 % scale drift along the
            // ring (centred), and image 7 one metre off.
            var rng = SplitMix64(seed: seed + 100)
            var priors: [ImageID: Rigid3] = [:]
            let ids = scene.imageIDs
            var drifted = truth.images[ids[0]]!.camFromWorld!.centerInWorld
            for (k, id) in ids.enumerated() {
                let pose = truth.images[id]!.camFromWorld!
                if k > 0 {
                    let step = pose.centerInWorld - truth.images[ids[k - 1]]!.camFromWorld!.centerInWorld
                    drifted += (0.99 + 0.02 * Double(k) / Double(ids.count - 1)) * step
                }
                var centre = drifted + 0.05 * rng.gaussian3()
                if k == 7 { centre += SIMD3(1, 0, 0) }
                let rotation = Rotation.matrix(angleAxis: (1.0 * .pi / 180) * rng.gaussian3()) * pose.rotation
                priors[id] = Rigid3(rotation: rotation, translation: -(rotation * centre))
            }

            var ba = BundleAdjustmentOptions()
            ba.refineFocalLength = false
            ba.refineExtraParams = false
            let alignment = try XCTUnwrap(PriorAlignment.align(&model, priors: priors, options: PriorAlignmentOptions(), bundle: ba))
            XCTAssertEqual(alignment.cameras, 14)
            XCTAssertEqual(alignment.inliers, 13, "seed \(seed): the prior a metre off is not obeyed")
            XCTAssertEqual(alignment.scale / (1 / 0.37), 1, accuracy: 0.005, "seed \(seed)")
            // The priors' frame is the truth's, bent by the drift (up to 7 cm along this 28 m
            // ring) and shaken by the noise: the result is nearer the truth than the priors are,
            // also at the camera whose prior was a metre off.
            var worst = 0.0, sum = 0.0, priorSum = 0.0
            for id in ids {
                let centre = truth.images[id]!.camFromWorld!.centerInWorld
                let error = length(model.images[id]!.camFromWorld!.centerInWorld - centre)
                worst = max(worst, error)
                sum += error
                if id != ids[7] { priorSum += length(priors[id]!.centerInWorld - centre) }
            }
            XCTAssertLessThan(sum / Double(ids.count), 0.1, "seed \(seed): centres in the priors' (the truth's) frame")
            XCTAssertLessThan(sum / Double(ids.count), 0.75 * priorSum / Double(ids.count - 1), "seed \(seed)")
            XCTAssertLessThan(worst, 0.15, "seed \(seed)")
            XCTAssertGreaterThan(alignment.positionSigma, 0.03)
            XCTAssertLessThan(alignment.positionSigma, 0.15)
            XCTAssertGreaterThan(alignment.spread, 0)
            // The images keep the shape: reprojection stays at the keypoints' noise.
            let summary = try BundleAdjuster.adjust(&model, options: { var o = ba; o.maxIterations = 0; return o }())
            XCTAssertLessThan(summary.initialRMSError, 1.0, "seed \(seed)")
        }
    }

    func testExactPriorsGiveTheirFrameExactly() throws {
        var options = SyntheticScene.Options()
        options.numImages = 10
        options.pixelNoise = 0.3
        let scene = SyntheticScene(options)
        var model = scene.reconstruction
        model.transform(by: Similarity3(scale: 2.5, rotation: Rotation.matrix(angleAxis: SIMD3(1, 0.2, -0.3)), translation: SIMD3(0, 4, 1)))
        let priors = Dictionary(uniqueKeysWithValues: scene.imageIDs.map { ($0, scene.reconstruction.images[$0]!.camFromWorld!) })
        var ba = BundleAdjustmentOptions()
        ba.refineFocalLength = false
        ba.refineExtraParams = false
        let alignment = try XCTUnwrap(PriorAlignment.align(&model, priors: priors, options: PriorAlignmentOptions(), bundle: ba))
        XCTAssertEqual(alignment.scale, 0.4, accuracy: 0.4 * 1e-4)
        XCTAssertEqual(alignment.inliers, 10)
        for id in scene.imageIDs {
            XCTAssertLessThan(length(model.images[id]!.camFromWorld!.centerInWorld - priors[id]!.centerInWorld), 0.005)
        }
    }

    func testTooFewPriorsLeaveTheModelAlone() throws {
        let scene = SyntheticScene()
        var model = scene.reconstruction
        let priors = Dictionary(uniqueKeysWithValues: scene.imageIDs.prefix(3).map { ($0, scene.reconstruction.images[$0]!.camFromWorld!) })
        XCTAssertNil(try PriorAlignment.align(&model, priors: priors, options: PriorAlignmentOptions(), bundle: BundleAdjustmentOptions()))
        XCTAssertEqual(model.images[ImageID(1)]!.camFromWorld, scene.reconstruction.images[ImageID(1)]!.camFromWorld)
    }
}
