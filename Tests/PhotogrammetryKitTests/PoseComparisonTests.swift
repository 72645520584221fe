import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

private func randomUnitVector(_ rng: inout SplitMix64) -> SIMD3<Double> {
    while true {
        let v = SIMD3(Double.random(in: -1...1, using: &rng), Double.random(in: -1...1, using: &rng),
                      Double.random(in: -1...1, using: &rng))
        let n = length(v)
        if n > 0.1 && n <= 1 { return v / n }
    }
}

/// The `cam_from_world` of a camera at `center` looking at `target`.
private func lookAt(center: SIMD3<Double>, target: SIMD3<Double>, roll: Double) -> Rigid3 {
    let z = normalize(target - center)
    let helper = abs(z.z) < 0.9 ? SIMD3<Double>(0, 0, 1) : SIMD3<Double>(1, 0, 0)
    let x0 = normalize(cross(z, helper)), y0 = cross(z, x0)
    let x = cos(roll) * x0 + sin(roll) * y0, y = cross(z, x)
    let rotation = Matrix3(rows: x, y, z)
    return Rigid3(rotation: rotation, translation: -(rotation * center))
}

/// A ring of `count` cameras around the origin with seeded jitter, all registered.
private func makeRing(count: Int, seed: UInt64) -> Reconstruction {
    var rng = SplitMix64(seed: seed)
    var scene = Reconstruction()
    scene.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [800, 800, 320, 240]))
    for k in 0..<count {
        let angle = 2 * Double.pi * Double(k) / Double(count) + Double.random(in: -0.1...0.1, using: &rng)
        let center = SIMD3(4 * cos(angle), 4 * sin(angle), Double.random(in: -1...2, using: &rng))
        let target = SIMD3(Double.random(in: -0.3...0.3, using: &rng), Double.random(in: -0.3...0.3, using: &rng), 0)
        let pose = lookAt(center: center, target: target, roll: Double.random(in: -0.2...0.2, using: &rng))
        scene.addImage(Image(id: ImageID(k + 1), name: String(format: "img%03d.png", k), cameraID: CameraID(1),
                             camFromWorld: pose))
    }
    return scene
}

/// The scene expressed in the world `y = s R x + t`.
private func transformed(_ scene: Reconstruction, scale s: Double, rotation r: Matrix3,
                         translation t: SIMD3<Double>) -> Reconstruction {
    var result = scene
    for (id, image) in scene.images {
        guard let pose = image.camFromWorld else { continue }
        let rotation = pose.rotation * r.transposed
        let center = s * (r * pose.centerInWorld) + t
        result.images[id]?.camFromWorld = Rigid3(rotation: rotation, translation: -(rotation * center))
    }
    return result
}

final class PoseComparisonTests: XCTestCase {
    private let n = 12

    func testIdenticalModelsScorePerfectly() throws {
        let reference = makeRing(count: n, seed: 1)
        let result = PoseComparison(model: reference, reference: reference)
        XCTAssertEqual(result.referenceImages, n)
        XCTAssertEqual(result.registered, n)
        XCTAssertEqual(result.modelImages, n)
        XCTAssertEqual(result.pairs, n * (n - 1))
        for value in [result.auc.at1, result.auc.at3, result.auc.at5, result.auc.at10] {
            XCTAssertEqual(value, 100, accuracy: 1e-6)
        }
        XCTAssertEqual(result.alignmentInliers, n)
        XCTAssertEqual(result.alignmentScale ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(result.medianRotationErrorDeg ?? 1, 0, accuracy: 1e-6)
        XCTAssertEqual(result.medianCenterError ?? 1, 0, accuracy: 1e-9)
        XCTAssertEqual(result.medianCenterErrorRelative ?? 1, 0, accuracy: 1e-9)
    }

    func testSimilarityTransformedModelScoresPerfectly() throws {
        var rng = SplitMix64(seed: 99)
        let reference = makeRing(count: n, seed: 2)
        let rotation = Rotation.matrix(angleAxis: randomUnitVector(&rng) * 2.3)
        let model = transformed(reference, scale: 0.37, rotation: rotation, translation: SIMD3(5, -3, 12))
        let result = PoseComparison(model: model, reference: reference)
        for value in [result.auc.at1, result.auc.at3, result.auc.at5, result.auc.at10] {
            XCTAssertEqual(value, 100, accuracy: 1e-4)
        }
        XCTAssertLessThan(result.medianPairErrorDeg ?? 1, 1e-6)
        XCTAssertEqual(result.alignmentInliers, n)
        XCTAssertEqual(result.alignmentScale ?? 0, 1 / 0.37, accuracy: 1e-9)
        XCTAssertEqual(result.medianRotationErrorDeg ?? 1, 0, accuracy: 1e-5)
        XCTAssertEqual(result.medianCenterError ?? 1, 0, accuracy: 1e-9)
    }

    func testLeastSquaresSimilarityRecoversTransform() throws {
        var rng = SplitMix64(seed: 5)
        let points = (0..<10).map { _ in randomUnitVector(&rng) * Double.random(in: 0.5...3, using: &rng) }
        let rotation = Rotation.matrix(angleAxis: randomUnitVector(&rng) * 3.0)
        let target = points.map { 2.5 * (rotation * $0) + SIMD3(1, 2, 3) }
        let fit = try XCTUnwrap(PoseComparison.Similarity.leastSquares(from: points, to: target))
        XCTAssertEqual(fit.scale, 2.5, accuracy: 1e-12)
        XCTAssertLessThan(Rotation.angleDegrees(between: fit.rotation, and: rotation), 1e-6)
        XCTAssertLessThan(length(fit.translation - SIMD3(1, 2, 3)), 1e-10)
        XCTAssertEqual(fit.rotation.determinant, 1, accuracy: 1e-12)
    }

    func testOneRotatedPoseGivesTheKnownAngleOnItsPairs() throws {
        let reference = makeRing(count: n, seed: 3)
        var model = reference
        let perturbed = ImageID(5)
        let angle = 2.0
        // Rotate camera 5 about its own centre: its relative rotations change by exactly `angle`,
        // its baselines seen from the other cameras not at all, and seen from itself by at most `angle`.
        let pose = reference.images[perturbed]!.camFromWorld!
        let delta = Rotation.matrix(angleAxis: normalize(SIMD3(0.3, -1, 0.5)) * (angle * .pi / 180))
        let rotation = delta * pose.rotation
        model.images[perturbed]?.camFromWorld = Rigid3(rotation: rotation, translation: -(rotation * pose.centerInWorld))

        let ordered = reference.images.values.sorted { $0.id < $1.id }
        let errors = PoseComparison.pairErrors(estimated: ordered.map { model.images[$0.id]!.camFromWorld },
                                               reference: ordered.map { $0.camFromWorld! })
        XCTAssertEqual(errors.count, n * (n - 1))
        var index = 0
        for src in ordered {
            for tgt in ordered where tgt.id != src.id {
                let expected = (src.id == perturbed || tgt.id == perturbed) ? angle : 0
                XCTAssertEqual(errors[index], expected, accuracy: 1e-6, "pair \(src.id) -> \(tgt.id)")
                index += 1
            }
        }

        // AUC from the known errors: a fraction f = 2 / n of the pairs at `angle`, the rest at 0.
        let result = PoseComparison(model: model, reference: reference)
        let f = 2 / Double(n), pairs = Double(n * (n - 1))
        XCTAssertEqual(result.auc.at1, 100 * (1 - f), accuracy: 1e-4)
        // Up to 3°: flat at 1 - f, a ramp to 1 - f + 1 / pairs at 2°, then flat at 1.
        XCTAssertEqual(result.auc.at3, 100 * (2 * (1 - f) + 1 / pairs + 1) / 3, accuracy: 1e-4)
        XCTAssertEqual(result.auc.at10, 100 * (2 * (1 - f) + 1 / pairs + 8) / 10, accuracy: 1e-4)
        // The absolute errors barely notice one camera in twelve.
        XCTAssertEqual(result.medianRotationErrorDeg ?? 1, 0, accuracy: 1e-6)
        XCTAssertEqual(result.medianCenterError ?? 1, 0, accuracy: 1e-9)
    }

    func testUnregisteredImageCountsAsFailureOnAllItsPairs() throws {
        let reference = makeRing(count: n, seed: 4)
        var model = reference
        model.images[ImageID(3)]?.camFromWorld = nil
        let result = PoseComparison(model: model, reference: reference)
        XCTAssertEqual(result.registered, n - 1)
        XCTAssertEqual(result.pairs, n * (n - 1))
        // 2 (n - 1) of the n (n - 1) ordered pairs fail: the AUC drops by 2 / n at every threshold.
        for value in [result.auc.at1, result.auc.at3, result.auc.at5, result.auc.at10] {
            XCTAssertEqual(value, 100 * (1 - 2 / Double(n)), accuracy: 1e-4)
        }
        XCTAssertEqual(result.medianCenterError ?? 1, 0, accuracy: 1e-9)

        // Removing the image altogether, or renaming it, is the same as leaving it unregistered.
        var renamed = reference
        renamed.images[ImageID(3)]?.name = "other.png"
        let renamedResult = PoseComparison(model: renamed, reference: reference)
        XCTAssertEqual(renamedResult.auc, result.auc)
        XCTAssertEqual(renamedResult.modelImages, n)
    }

    func testNoRegisteredImage() throws {
        let reference = makeRing(count: 4, seed: 8)
        let result = PoseComparison(model: Reconstruction(), reference: reference)
        XCTAssertEqual(result.registered, 0)
        XCTAssertEqual(result.auc.at10, 0)
        XCTAssertNil(result.medianCenterError)
        XCTAssertTrue(result.jsonString().contains("\"median_center_error\" : null"), result.jsonString())
    }

    func testRobustAlignmentIgnoresAMisplacedCamera() throws {
        let reference = makeRing(count: n, seed: 6)
        var model = transformed(reference, scale: 2, rotation: .identity, translation: SIMD3(1, 1, 1))
        let pose = model.images[ImageID(7)]!.camFromWorld!
        model.images[ImageID(7)]?.camFromWorld = Rigid3(rotation: pose.rotation,
                                                        translation: pose.translation + SIMD3(5, 0, 0))
        let result = PoseComparison(model: model, reference: reference)
        XCTAssertEqual(result.alignmentInliers, n - 1)
        XCTAssertEqual(result.alignmentScale ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(result.medianCenterError ?? 1, 0, accuracy: 1e-9)
    }

    func testPoseAUCByHand() {
        // Curve points (0, 0) (0.5, 1/4) (1.5, 1/2) (4, 3/4) (20, 1).
        // Up to 1°: 0.5 · 1/8 + 0.5 · 1/4 = 0.1875. Up to 5°: 0.0625 + 1 · 3/8 + 2.5 · 5/8 + 1 · 3/4 = 2.75.
        let aucs = PoseComparison.poseAUC(errors: [20, 1.5, 0.5, 4], thresholds: [1, 5, 30])
        XCTAssertEqual(aucs[0], 18.75, accuracy: 1e-12)
        XCTAssertEqual(aucs[1], 55, accuracy: 1e-12)
        let areaTo30: Double = 2.0 + 16 * 0.875 + 10
        XCTAssertEqual(aucs[2], 100 * areaTo30 / 30, accuracy: 1e-12)
        // Errors exactly at the threshold count (searchsorted side right).
        let tied = PoseComparison.poseAUC(errors: [1, 1, 3], thresholds: [1, 3])
        XCTAssertEqual(tied[0], 100.0 / 6, accuracy: 1e-12)
        let areaTo3: Double = 1.0 / 6 + (2.0 / 3 + 1)
        XCTAssertEqual(tied[1], 100 * areaTo3 / 3, accuracy: 1e-12)
        XCTAssertEqual(PoseComparison.poseAUC(errors: [180], thresholds: [10]), [0])
    }

    func testTranslationDirectionIsSignSensitive() {
        XCTAssertEqual(PoseComparison.vectorAngleDegrees(SIMD3(1, 0, 0), SIMD3(-2, 0, 0)), 180, accuracy: 1e-12)
        XCTAssertEqual(PoseComparison.vectorAngleDegrees(SIMD3(1, 0, 0), SIMD3(0, 3, 0)), 90, accuracy: 1e-12)
        XCTAssertEqual(PoseComparison.vectorAngleDegrees(.zero, SIMD3(0, 3, 0)), 90, accuracy: 1e-12)
    }

    func testJSONHasSnakeCaseKeysAndReadsBack() throws {
        let reference = makeRing(count: 5, seed: 9)
        let result = PoseComparison(model: reference, reference: reference)
        let json = result.jsonString()
        for key in ["reference_images", "registered", "model_images", "pairs", "auc", "median_pair_error_deg",
                    "alignment_inliers", "alignment_scale", "median_rotation_error_deg", "median_center_error",
                    "median_center_error_relative", "\"1\"", "\"3\"", "\"5\"", "\"10\""] {
            XCTAssertTrue(json.contains(key), "missing \(key) in \(json)")
        }
        let decoded = try JSONDecoder().decode(PoseComparison.self, from: Data(json.utf8))
        XCTAssertEqual(decoded.registered, result.registered)
        XCTAssertEqual(decoded.auc, result.auc)
    }

    func testComparePosesReadsBothDirectories() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pose-comparison-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let reference = makeRing(count: 8, seed: 10)
        var model = transformed(reference, scale: 3, rotation: Rotation.matrix(angleAxis: SIMD3(0.1, 0.2, 0.3)),
                                translation: SIMD3(0, 1, 0))
        model.images[ImageID(8)] = nil
        try reference.writeColmapText(to: root.appendingPathComponent("gt"))
        try model.writeColmapText(to: root.appendingPathComponent("model"))
        let result = try comparePoses(model: root.appendingPathComponent("model"),
                                      reference: root.appendingPathComponent("gt"))
        XCTAssertEqual(result.referenceImages, 8)
        XCTAssertEqual(result.registered, 7)
        XCTAssertEqual(result.auc.at5, 100 * (1 - 2.0 / 8), accuracy: 1e-4)
        XCTAssertThrowsError(try comparePoses(model: root.appendingPathComponent("absent"),
                                              reference: root.appendingPathComponent("gt")))
    }
}
