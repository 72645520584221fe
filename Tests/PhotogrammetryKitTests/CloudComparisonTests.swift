import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Accuracy, completeness and F1 against a unit square whose answers are known exactly.
final class CloudComparisonTests: XCTestCase {
    /// The unit square [0, 1]² at z = 0 as two triangles.
    private static func square(size: Float = 1) throws -> PointCloud {
        try PointCloud(points: [SIMD3(0, 0, 0), SIMD3(size, 0, 0), SIMD3(size, size, 0), SIMD3(0, size, 0)],
                       triangles: [SIMD3(0, 1, 2), SIMD3(0, 2, 3)])
    }

    /// Points on a regular grid over [0, xMax] x [0, 1] at z, `step` apart.
    private static func grid(xMax: Double = 1, step: Double = 0.01, z: Double = 0) -> [SIMD3<Double>] {
        var points: [SIMD3<Double>] = []
        for i in 0...Int((xMax / step).rounded()) {
            for j in 0...Int((1 / step).rounded()) { points.append(SIMD3(Double(i) * step, Double(j) * step, z)) }
        }
        return points
    }

    private static func cloud(_ points: [SIMD3<Double>]) throws -> PointCloud {
        try PointCloud(points: points.map { SIMD3<Float>($0) })
    }

    func testPointsOnTheSurfaceAreAccurateAndComplete() throws {
        let result = try Self.cloud(Self.grid()).compare(with: Self.square(), tau: 0.02)
        XCTAssertEqual(result.accuracy, 100)
        XCTAssertEqual(result.completeness, 100)
        XCTAssertEqual(result.f1, 100)
        XCTAssertEqual(result.evaluatedPoints, 101 * 101)
        // About one sample per (tau / 5)² of the unit area.
        XCTAssertEqual(Double(result.referenceSamples), 1 / (0.004 * 0.004), accuracy: 300)
    }

    func testPointsTwoTauAwayAreNeitherAccurateNorComplete() throws {
        let tau = 0.02
        let result = try Self.cloud(Self.grid(z: 2 * tau)).compare(with: Self.square(), tau: tau)
        XCTAssertEqual(result.accuracy, 0)
        XCTAssertEqual(result.completeness, 0)
        XCTAssertEqual(result.f1, 0)
        // Just inside tau counts, exactly (point-to-triangle distance).
        let inside = try Self.cloud(Self.grid(z: 0.99 * tau)).compare(with: Self.square(), tau: tau)
        XCTAssertEqual(inside.accuracy, 100)
    }

    func testHalfTheSquareIsHalfComplete() throws {
        let tau = 0.01
        let result = try Self.cloud(Self.grid(xMax: 0.5, step: 0.005)).compare(with: Self.square(), tau: tau)
        XCTAssertEqual(result.accuracy, 100)
        // The covered half plus a band of width tau beyond its edge: 51 %, up to sampling noise.
        XCTAssertEqual(result.completeness, 51, accuracy: 1)
        XCTAssertEqual(result.f1, 2 * 100 * result.completeness / (100 + result.completeness), accuracy: 1e-9)
    }

    func testAMeshIsSampledAndComparedAsItsSurface() throws {
        // The square against itself, and a square half the size against the unit square.
        let same = try Self.square().compare(with: Self.square(), tau: 0.01)
        XCTAssertEqual(same.accuracy, 100)
        XCTAssertEqual(same.completeness, 100)
        let small = try Self.square(size: 0.5).compare(with: Self.square(), tau: 0.01)
        XCTAssertEqual(small.accuracy, 100)
        XCTAssertEqual(small.completeness, 25 + 100 * (2 * 0.5 * 0.01), accuracy: 1)
        XCTAssertEqual(Double(small.evaluatedPoints), 0.25 / (0.002 * 0.002), accuracy: 200)
    }

    func testTheSimilarityMapsOursIntoTheReferenceFrame() throws {
        // Ours lives in a frame where reference = 2 R ours + t.
        let rotation = Rotation.matrix(angleAxis: SIMD3(0.3, -0.5, 0.9))
        let similarity = PoseComparison.Similarity(scale: 2, rotation: rotation, translation: SIMD3(1, -2, 0.5))
        let inverse = rotation.transposed
        let ours = Self.grid().map { inverse * ($0 - similarity.translation) / 2 }
        let aligned = try Self.cloud(ours).compare(with: Self.square(), similarity: similarity, tau: 0.01)
        XCTAssertEqual(aligned.accuracy, 100)
        XCTAssertEqual(aligned.completeness, 100)
        XCTAssertEqual(aligned.similarity, similarity)
        let unaligned = try Self.cloud(ours).compare(with: Self.square(), tau: 0.01)
        XCTAssertLessThan(unaligned.accuracy, 5)
        // A scale-1 mapping with the right rotation is still off by a factor of two.
        var wrongScale = similarity
        wrongScale.scale = 1
        XCTAssertLessThan(try Self.cloud(ours).compare(with: Self.square(), similarity: wrongScale, tau: 0.01).accuracy, 5)
    }

    func testARegionCountsOnlyOurPointsInsideItsBoxAndSamplesOnlyItsSurface() throws {
        // Ours: the whole square plus points far off it, outside the region [0, 0.5]² x [-0.1, 0.1].
        var points = Self.grid(step: 0.01)
        let outliers = (0..<100).map { SIMD3<Double>(2 + 0.01 * Double($0), 0.2, 1) }
        points += outliers
        let regionMesh = try PointCloud(
            points: [SIMD3(0, 0, -0.1), SIMD3(0.5, 0, -0.1), SIMD3(0.5, 0.5, 0.1), SIMD3(0, 0.5, 0.1)],
            triangles: [SIMD3(0, 1, 2), SIMD3(0, 2, 3)])
        let result = try Self.cloud(points).compare(with: Self.square(), region: regionMesh, tau: 0.02)
        XCTAssertEqual(result.evaluatedPoints, 51 * 51, "only points inside the region's box count")
        XCTAssertEqual(result.accuracy, 100)
        // The region is a tilted square: its samples lie up to 0.1 off the plane, so only the
        // band within tau of z = 0 is complete.
        XCTAssertEqual(result.completeness, 100 * 0.02 / 0.1, accuracy: 3)
        let whole = try Self.cloud(points).compare(with: Self.square(), tau: 0.02)
        XCTAssertEqual(whole.evaluatedPoints, 101 * 101 + 100)
        XCTAssertEqual(whole.accuracy, 100 * Double(101 * 101) / Double(101 * 101 + 100), accuracy: 1e-9)
    }

    func testBadThresholdsAreRefused() throws {
        XCTAssertThrowsError(try Self.square().compare(with: Self.square(), tau: 0)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .invalidArgument)
        }
        XCTAssertThrowsError(try Self.square().compare(with: Self.square(), tau: 0.01, sampleSpacing: -1))
        // A huge surface at a tiny spacing would need billions of samples.
        XCTAssertThrowsError(try Self.square(size: 1000).compare(with: Self.square(), tau: 0.01)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .limitExceeded)
        }
    }

    func testJSONHasTheDocumentedKeysAndRoundTrips() throws {
        let similarity = PoseComparison.Similarity(scale: 1.5, rotation: Rotation.matrix(angleAxis: SIMD3(0, 0, 0.2)),
                                                   translation: SIMD3(1, 2, 3))
        let result = CloudComparison(accuracy: 97.5, completeness: 80, f1: 87.9, tau: 0.01, sampleSpacing: 0.002,
                                     evaluatedPoints: 1000, referenceSamples: 2000, similarity: similarity)
        let json = result.jsonString()
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual(Set(object?.keys.map { $0 } ?? []),
                       ["accuracy", "completeness", "f1", "tau", "sample_spacing", "evaluated_points",
                        "reference_samples", "similarity"])
        let nested = object?["similarity"] as? [String: Any]
        XCTAssertEqual(nested?["scale"] as? Double, 1.5)
        XCTAssertEqual((nested?["rotation"] as? [Double])?.count, 9)
        XCTAssertEqual(nested?["translation"] as? [Double], [1, 2, 3])
        let decoded = try JSONDecoder().decode(CloudComparison.self, from: Data(json.utf8))
        XCTAssertEqual(decoded.accuracy, result.accuracy)
        XCTAssertEqual(decoded.similarity.scale, 1.5)
        XCTAssertEqual(decoded.similarity.translation, similarity.translation)
        XCTAssertEqual(decoded.similarity.rotation.rowMajor, similarity.rotation.rowMajor)
    }

    func testSimilarityFromSparseModelsAndTheFileLevelComparison() throws {
        // A reference ring of cameras and the same ring in a model frame (scale 0.5, rotated,
        // shifted); one image the reference lacks, one the model lacks.
        let rotation = Rotation.matrix(angleAxis: SIMD3(-0.4, 0.2, 1.1))
        let truth = PoseComparison.Similarity(scale: 2, rotation: rotation, translation: SIMD3(0.3, -0.1, 2))
        var reference = Reconstruction(), model = Reconstruction()
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [500, 500, 320, 240])
        reference.addCamera(camera)
        model.addCamera(camera)
        for k in 0..<8 {
            let angle = Double(k) * .pi / 4
            let center = SIMD3(3 * cos(angle), 3 * sin(angle), 1 + 0.1 * Double(k % 3))
            let z = normalize(-center), x = normalize(cross(z, SIMD3(0, 0, 1))), y = cross(z, x)
            let r = Matrix3(rows: x, y, z)
            let name = "img\(k).png"
            if k != 7 {
                reference.addImage(Image(id: ImageID(k + 1), name: name, cameraID: CameraID(1),
                                         camFromWorld: Rigid3(rotation: r, translation: -(r * center))))
            }
            if k != 0 {
                // The same camera in the model frame: centre c_m with truth(c_m) = center.
                let cm = rotation.transposed * (center - truth.translation) / truth.scale
                let rm = r * rotation
                model.addImage(Image(id: ImageID(100 + k), name: name, cameraID: CameraID(1),
                                     camFromWorld: Rigid3(rotation: rm, translation: -(rm * cm))))
            }
        }
        let found = try CloudComparison.similarity(model: model, reference: reference)
        XCTAssertEqual(found.scale, 2, accuracy: 1e-9)
        XCTAssertEqual(length(found.translation - truth.translation), 0, accuracy: 1e-9)
        XCTAssertEqual(PoseComparison.rotationAngleDegrees(between: found.rotation, and: rotation), 0, accuracy: 1e-6)

        // The same through files: our cloud in the model frame, the square as reference.
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CloudComparisonTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelDir = directory.appendingPathComponent("model"), referenceDir = directory.appendingPathComponent("reference")
        try FileManager.default.createDirectory(at: modelDir, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: referenceDir, withIntermediateDirectories: true)
        try model.writeColmapText(to: modelDir)
        try reference.writeColmapText(to: referenceDir)
        let ours = Self.grid(step: 0.02).map { rotation.transposed * ($0 - truth.translation) / truth.scale }
        try Self.cloud(ours).save(to: directory.appendingPathComponent("ours.ply"))
        try Self.square().save(to: directory.appendingPathComponent("square.ply"))
        let result = try compareClouds(
            ours: directory.appendingPathComponent("ours.ply"), reference: directory.appendingPathComponent("square.ply"),
            region: nil, sparse: modelDir, referenceSparse: referenceDir, tau: 0.03)
        XCTAssertEqual(result.accuracy, 100)
        XCTAssertEqual(result.completeness, 100)

        // Two shared images cannot fix a similarity.
        var sparse = model
        sparse.images = sparse.images.filter { $0.key.rawValue <= 102 }
        XCTAssertThrowsError(try CloudComparison.similarity(model: sparse, reference: reference)) { error in
            XCTAssertTrue(error is CloudComparisonError)
        }
    }
}
