import XCTest
import CVision
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class BundleAdjustmentTests: XCTestCase {
    private func noisyScene(seed: UInt64 = 11, model: CameraModel = .simpleRadial) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.model = model
        options.numImages = 12
        options.numPoints = 400
        options.pixelNoise = 0.5
        options.seed = seed
        return SyntheticScene(options)
    }

    /// Perturbs every pose but the first two, every point, and the focal length and distortion.
    private func perturbed(_ scene: SyntheticScene, seed: UInt64 = 99) -> Reconstruction {
        var rng = SplitMix64(seed: seed)
        var rec = scene.reconstruction
        for id in scene.imageIDs.dropFirst(2) {
            let pose = rec.images[id]!.camFromWorld!
            let w = pose.angleAxisAndTranslation
            let rotation = SIMD3(w[0], w[1], w[2]) + 0.003 * rng.gaussian3()
            let translation = SIMD3(w[3], w[4], w[5]) + 0.03 * rng.gaussian3()
            rec.images[id]!.camFromWorld = Rigid3(angleAxis: rotation, translation: translation)
        }
        for id in rec.points3D.keys.sorted() { rec.points3D[id]!.position += 0.02 * rng.gaussian3() }
        rec.cameras[CameraID(1)]!.params[0] *= 1.03
        rec.cameras[CameraID(1)]!.params[3] = 0
        return rec
    }

    func testSelfCalibratingAdjustmentConverges() throws {
        let scene = noisyScene()
        var rec = perturbed(scene)
        let first = scene.imageIDs[0], second = scene.imageIDs[1]
        var options = BundleAdjustmentOptions()
        options.loss = .trivial
        // The two exact poses fix the gauge (including scale) at the truth.
        let summary = try BundleAdjuster.adjust(&rec, imageIDs: Set(scene.imageIDs.dropFirst(2)),
                                                constantImageIDs: [first, second], options: options)
        XCTAssertTrue(summary.isUsable)
        XCTAssertGreaterThan(summary.initialRMSError, 5)
        // 2D error of 0.5 px per coordinate: RMS ≈ 0.5·√2 less the fitted degrees of freedom.
        XCTAssertLessThan(summary.finalRMSError, 0.75)
        XCTAssertGreaterThan(summary.finalRMSError, 0.5)
        let truth = scene.camera.params, refined = rec.cameras[CameraID(1)]!.params
        XCTAssertEqual(refined[0], truth[0], accuracy: 0.005 * truth[0])
        XCTAssertEqual(refined[3], truth[3], accuracy: 0.005)
        XCTAssertEqual(refined[1], truth[1])  // principal point not refined by default
        for id in scene.imageIDs {
            let error = length(rec.images[id]!.camFromWorld!.centerInWorld
                - scene.reconstruction.images[id]!.camFromWorld!.centerInWorld)
            XCTAssertLessThan(error, 0.01 * scene.scale)
        }
        // Constant images are untouched, bit for bit.
        XCTAssertEqual(rec.images[first]!.camFromWorld, scene.reconstruction.images[first]!.camFromWorld)
        XCTAssertEqual(rec.images[second]!.camFromWorld, scene.reconstruction.images[second]!.camFromWorld)
    }

    func testSelfCalibratingFisheyeConverges() throws {
        // An equidistant fisheye (f = 350 px on a 1000 px frame, 110° across): focal length and
        // its k come back from 3 % and 0 off.
        let scene = noisyScene(model: .simpleRadialFisheye)
        var rec = perturbed(scene)
        var options = BundleAdjustmentOptions()
        options.loss = .trivial
        let summary = try BundleAdjuster.adjust(&rec, imageIDs: Set(scene.imageIDs.dropFirst(2)),
                                                constantImageIDs: Set(scene.imageIDs.prefix(2)), options: options)
        XCTAssertTrue(summary.isUsable)
        XCTAssertLessThan(summary.finalRMSError, 0.75)
        let truth = scene.camera.params, refined = rec.cameras[CameraID(1)]!.params
        XCTAssertEqual(refined[0], truth[0], accuracy: 0.005 * truth[0])
        XCTAssertEqual(refined[3], truth[3], accuracy: 0.005)
    }

    func testFixGaugeHoldsFirstImage() throws {
        let scene = noisyScene(seed: 4)
        var rec = perturbed(scene)
        let before = rec.images[scene.imageIDs[0]]!.camFromWorld
        let summary = try BundleAdjuster.adjust(&rec, fixGauge: true)
        XCTAssertTrue(summary.isUsable)
        XCTAssertEqual(summary.numImages, scene.imageIDs.count)
        XCTAssertLessThan(summary.finalRMSError, 0.75)
        XCTAssertEqual(rec.images[scene.imageIDs[0]]!.camFromWorld, before)
    }

    /// The scale is held by the second image's largest translation coordinate (its padded
    /// subset manifold moves it by nothing), while the rest of its pose and the intrinsics move.
    func testFixGaugeHoldsScaleCoordinateOfSecondImage() throws {
        let scene = noisyScene(seed: 5)
        var rec = perturbed(scene)
        let second = rec.images[scene.imageIDs[1]]!.camFromWorld!
        let t = second.translation
        let axis = [abs(t.x), abs(t.y), abs(t.z)].enumerated().max { $0.element < $1.element }!.offset
        let focalBefore = rec.cameras[CameraID(1)]!.params[0]
        let summary = try BundleAdjuster.adjust(&rec, fixGauge: true)
        XCTAssertTrue(summary.isUsable)
        XCTAssertLessThan(summary.finalRMSError, 0.75)
        let after = rec.images[scene.imageIDs[1]]!.camFromWorld!
        XCTAssertEqual(after.translation[axis], t[axis])
        XCTAssertGreaterThan(length(after.translation - t), 1e-9)
        XCTAssertNotEqual(rec.cameras[CameraID(1)]!.params[0], focalBefore)
    }

    func testRobustLossToleratesOutliers() throws {
        var options = SyntheticScene.Options()
        options.numImages = 10
        options.numPoints = 300
        options.pixelNoise = 0.5
        options.outlierRatio = 0.02
        let scene = SyntheticScene(options)
        var rec = perturbed(scene)
        let summary = try BundleAdjuster.adjust(&rec, imageIDs: Set(scene.imageIDs.dropFirst(2)),
                                                constantImageIDs: Set(scene.imageIDs.prefix(2)))
        XCTAssertTrue(summary.isUsable)
        let f = rec.cameras[CameraID(1)]!.params[0]
        XCTAssertEqual(f, scene.camera.params[0], accuracy: 0.01 * scene.camera.params[0])
    }

    func testPointBehindCameraGivesNoNaN() throws {
        let scene = noisyScene(seed: 21)
        var rec = perturbed(scene)
        // Put one point just behind the third camera (its centre minus a bit of viewing direction).
        let pose = rec.images[scene.imageIDs[2]]!.camFromWorld!
        let id = rec.points3D.keys.sorted()[0]
        rec.points3D[id]!.position = pose.centerInWorld - 0.5 * pose.viewingDirectionInWorld
        let summary = try BundleAdjuster.adjust(&rec, imageIDs: Set(scene.imageIDs.dropFirst(2)),
                                                constantImageIDs: Set(scene.imageIDs.prefix(2)))
        XCTAssertTrue(summary.isUsable)
        XCTAssertTrue(summary.finalRMSError.isFinite)
        XCTAssertLessThan(summary.finalRMSError, 1)
        XCTAssertTrue(rec.points3D.values.allSatisfy { $0.position.x.isFinite && $0.position.z.isFinite })
    }

    /// The solver's analytic reprojection costs, and the autodiff functors that hold a constant
    /// pose and/or camera as data (cost_functions.h), give the residuals and, for their free
    /// blocks, the Jacobians of the general autodiff functor.
    func testReprojectionCostsMatchGeneralAutodiff() throws {
        let models: [(model: Int32, params: [Double])] = [
            (0, [800, 500, 400]), (1, [800, 820, 510, 390]), (2, [800, 500, 400, -0.08]),
            (3, [800, 500, 400, -0.1, 0.03]), (8, [350, 500, 400, 0.05]),
        ]
        var rng = SplitMix64(seed: 5)
        for (model, params) in models {
            for sample in 0..<24 {
                // Some rotations below 0.01 rad, where the analytic rotation switches to its series.
                let rotation = (sample % 4 == 0 ? 0.002 : 0.5) * rng.gaussian3(), translation = rng.gaussian3()
                let pose = [rotation.x, rotation.y, rotation.z, translation.x, translation.y, translation.z]
                // A point in front of the camera: back from camera coordinates to the world.
                let inCamera = SIMD3(rng.uniform(-0.6, 0.6), rng.uniform(-0.5, 0.5), 1) * rng.uniform(1, 10)
                let camFromWorld = Rigid3(angleAxis: rotation, translation: translation)
                let world = camFromWorld.inverse.apply(inCamera)
                let point = [world.x, world.y, world.z]
                let observed = [rng.uniform(0, 1000), rng.uniform(0, 800)]
                let n = params.count

                func evaluate(poseConstant: Bool, cameraConstant: Bool, autodiff: Bool)
                    -> (residuals: [Double], pose: [Double], point: [Double], camera: [Double]) {
                    var residuals = [Double](repeating: .nan, count: 2)
                    var jPose = [Double](repeating: .nan, count: 12), jPoint = [Double](repeating: .nan, count: 6)
                    var jCamera = [Double](repeating: .nan, count: 2 * n)
                    XCTAssertNoThrow(try check(cvis_ba_evaluate_observation(
                        model, params, pose, point, observed, poseConstant ? 1 : 0, cameraConstant ? 1 : 0,
                        autodiff ? 1 : 0, &residuals, &jPose, &jPoint, &jCamera)))
                    return (residuals, jPose, jPoint, jCamera)
                }
                func assertClose(_ a: [Double], _ b: [Double], _ what: String) {
                    let scale = max(1, a.map(abs).max() ?? 0)
                    for (x, y) in zip(a, b) {
                        XCTAssertEqual(x, y, accuracy: 1e-9 * scale, "model \(model): \(what)")
                    }
                }
                let general = evaluate(poseConstant: false, cameraConstant: false, autodiff: true)
                XCTAssertTrue((general.residuals + general.pose + general.point + general.camera).allSatisfy(\.isFinite))
                for autodiff in [false, true] {
                    for (poseConstant, cameraConstant) in [(false, false), (false, true), (true, false), (true, true)] {
                        let special = evaluate(poseConstant: poseConstant, cameraConstant: cameraConstant, autodiff: autodiff)
                        let form = "autodiff \(autodiff), pose constant \(poseConstant), camera constant \(cameraConstant)"
                        assertClose(general.residuals, special.residuals, "residuals, " + form)
                        assertClose(general.point, special.point, "point Jacobian, " + form)
                        if !poseConstant { assertClose(general.pose, special.pose, "pose Jacobian, " + form) }
                        if !cameraConstant { assertClose(general.camera, special.camera, "camera Jacobian, " + form) }
                        // Constant blocks have no Jacobian: their outputs stay untouched.
                        if poseConstant { XCTAssertTrue(special.pose.allSatisfy(\.isNaN), form) }
                        if cameraConstant { XCTAssertTrue(special.camera.allSatisfy(\.isNaN), form) }
                    }
                }
            }
        }
    }

    /// A point behind the camera gets the constant residual and zero derivatives from every form.
    func testReprojectionCostBehindCamera() throws {
        let params: [Double] = [800, 500, 400, -0.08]
        let pose: [Double] = [0.1, -0.2, 0.05, 0, 0, 0]
        let point: [Double] = [0.1, 0.2, -3]  // z < 0 after the small rotation
        let observed: [Double] = [500, 400]
        for autodiff: Int32 in [0, 1] {
            var residuals = [Double](repeating: .nan, count: 2)
            var jPose = [Double](repeating: .nan, count: 12), jPoint = [Double](repeating: .nan, count: 6)
            var jCamera = [Double](repeating: .nan, count: 8)
            try check(cvis_ba_evaluate_observation(2, params, pose, point, observed, 0, 0, autodiff,
                                                   &residuals, &jPose, &jPoint, &jCamera))
            XCTAssertEqual(residuals, [1e3, 1e3])
            XCTAssertTrue((jPose + jPoint + jCamera).allSatisfy { $0 == 0 })
        }
    }

    /// Local bundle adjustment's shape: intrinsics fixed, some images held still, so every
    /// observation uses a constant-camera cost function and those of the still images a
    /// point-only one.
    func testFixedIntrinsicsWithConstantImagesConverges() throws {
        let scene = noisyScene(seed: 8)
        var rec = perturbed(scene)
        // The still images and the camera at the truth; the rest perturbed.
        rec.cameras[CameraID(1)] = scene.reconstruction.cameras[CameraID(1)]
        let constant = Set(scene.imageIDs.prefix(4))
        for id in constant { rec.images[id]!.camFromWorld = scene.reconstruction.images[id]!.camFromWorld }
        var options = BundleAdjustmentOptions()
        options.loss = .trivial
        options.refineFocalLength = false
        options.refineExtraParams = false
        let summary = try BundleAdjuster.adjust(&rec, imageIDs: Set(scene.imageIDs.dropFirst(4)),
                                                constantImageIDs: constant, options: options)
        XCTAssertTrue(summary.isUsable)
        XCTAssertLessThan(summary.finalRMSError, 0.75)
        XCTAssertEqual(rec.cameras[CameraID(1)]!.params, scene.camera.params)
        for id in scene.imageIDs {
            let error = length(rec.images[id]!.camFromWorld!.centerInWorld
                - scene.reconstruction.images[id]!.camFromWorld!.centerInWorld)
            XCTAssertLessThan(error, 0.01 * scene.scale)
        }
    }

    func testOutOfRangeIndexIsInvalidArgument() throws {
        var params = [Double](repeating: 0, count: 8)
        params[0] = 800
        var model: Int32 = 0  // SIMPLE_PINHOLE
        var imageCamera: Int32 = 0, poseMode: Int32 = -1
        var pose = [Double](repeating: 0, count: 6)
        var point: [Double] = [0, 0, 5]
        var obsImage: [Int32] = [0], obsPoint: [Int32] = [3]
        var xy: [Double] = [0, 0]
        var problem = cvis_ba_problem(num_cameras: 1, camera_models: &model, camera_params: &params,
                                      camera_constant: nil, num_images: 1, image_camera: &imageCamera,
                                      image_poses: &pose, pose_mode: &poseMode, num_points: 1,
                                      points3D: &point, point_constant: nil, num_observations: 1,
                                      obs_image: &obsImage, obs_point: &obsPoint, obs_xy: &xy)
        var options = cvis_ba_options()
        cvis_ba_options_default(&options)
        XCTAssertThrowsError(try check(cvis_bundle_adjust(&problem, &options, nil))) {
            let error = $0 as? CVisionError
            XCTAssertEqual(error?.code, .invalidArgument)
            XCTAssertTrue(error?.message.contains("point index 3") ?? false, error?.message ?? "")
        }
    }

    func testBadOptionsThrow() {
        var rec = noisyScene().reconstruction
        var options = BundleAdjustmentOptions()
        options.lossScale = 0
        XCTAssertThrowsError(try BundleAdjuster.adjust(&rec, options: options)) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .invalidArgument)
        }
    }
}
