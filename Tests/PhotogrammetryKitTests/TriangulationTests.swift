import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class TriangulationTests: XCTestCase {
    private func scene(noise: Double) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.numImages = 6
        options.numPoints = 300
        options.pixelNoise = noise
        options.model = .simplePinhole
        return SyntheticScene(options)
    }

    /// The scene's tracks as triangulator input, with poses indexed by image id - 1.
    private func tracks(_ scene: SyntheticScene) -> (ids: [Point3DID], tracks: [[Triangulator.Observation]], poses: [Rigid3]) {
        let rec = scene.reconstruction
        let poses = scene.imageIDs.map { rec.images[$0]!.camFromWorld! }
        let ids = rec.points3D.keys.sorted()
        let tracks = ids.map { id in
            rec.points3D[id]!.track.map { e in
                Triangulator.Observation(poseIndex: e.imageID.rawValue - 1,
                                         normalized: scene.camera.normalized(rec.images[e.imageID]!.points2D[e.point2DIndex]))
            }
        }
        return (ids, tracks, poses)
    }

    func testNoiseFreeIsExact() throws {
        let s = scene(noise: 0)
        let (ids, tracks, poses) = tracks(s)
        let results = try Triangulator.triangulate(tracks, poses: poses)
        for (id, result) in zip(ids, results) {
            let point = try XCTUnwrap(result.point)
            XCTAssertLessThan(length(point - s.truePoints[id]!), 1e-9)
            XCTAssertTrue(result.inliers.allSatisfy { $0 })
        }
    }

    func testNoisyWithinTolerance() throws {
        let s = scene(noise: 1)
        let (ids, tracks, poses) = tracks(s)
        let results = try Triangulator.triangulate(tracks, poses: poses)
        var errors = [Double]()
        for (id, result) in zip(ids, results) {
            if let point = result.point { errors.append(length(point - s.truePoints[id]!)) }
        }
        XCTAssertGreaterThan(Double(errors.count), 0.95 * Double(ids.count))
        // 1 px at f = 800 and 6 units: ~0.01 per view; the median over multi-view tracks is well below.
        XCTAssertLessThan(errors.sorted()[errors.count / 2], 0.01)
    }

    func testOutlierViewRejected() throws {
        let c1 = SyntheticScene.lookAt(from: SIMD3(-1, 0, -5), to: .zero)
        let c2 = SyntheticScene.lookAt(from: SIMD3(1, 0, -5), to: .zero)
        let c3 = SyntheticScene.lookAt(from: SIMD3(0, 1, -5), to: .zero)
        let x = SIMD3<Double>(0.1, 0.2, 0.3)
        func obs(_ i: Int, _ pose: Rigid3, offset: SIMD2<Double> = .zero) -> Triangulator.Observation {
            let p = pose.apply(x)
            return Triangulator.Observation(poseIndex: i, normalized: SIMD2(p.x / p.z, p.y / p.z) + offset)
        }
        let result = try Triangulator.triangulate([[obs(0, c1), obs(1, c2), obs(2, c3, offset: SIMD2(0.05, 0))]],
                                                  poses: [c1, c2, c3])[0]
        XCTAssertEqual(result.inliers, [true, true, false])
        XCTAssertLessThan(length(try XCTUnwrap(result.point) - x), 1e-9)
    }

    func testSmallAngleTrackRejected() throws {
        // Centres 0.01 apart seeing a point 5 away: about 0.1 degrees between the rays.
        let c1 = SyntheticScene.lookAt(from: SIMD3(0, 0, -5), to: .zero)
        let c2 = SyntheticScene.lookAt(from: SIMD3(0.01, 0, -5), to: .zero)
        let x = SIMD3<Double>(0, 0, 0)
        let track = [c1, c2].enumerated().map { i, pose -> Triangulator.Observation in
            let p = pose.apply(x)
            return Triangulator.Observation(poseIndex: i, normalized: SIMD2(p.x / p.z, p.y / p.z))
        }
        XCTAssertNil(try Triangulator.triangulate([track], poses: [c1, c2])[0].point)
        var options = Triangulator.Options()
        options.minAngleDegrees = 0.05
        XCTAssertNotNil(try Triangulator.triangulate([track], poses: [c1, c2], options: options)[0].point)
    }

    func testPointBehindCameraRejected() throws {
        // Two cameras looking along +z; observations consistent with a point at z = -5 (behind).
        let c1 = Rigid3(translation: SIMD3(0, 0, 0))
        let c2 = Rigid3(translation: SIMD3(-1, 0, 0))
        let x = SIMD3<Double>(0.5, 0.2, -5)
        let track = [c1, c2].enumerated().map { i, pose -> Triangulator.Observation in
            let p = pose.apply(x)
            return Triangulator.Observation(poseIndex: i, normalized: SIMD2(p.x / p.z, p.y / p.z))
        }
        let result = try Triangulator.triangulate([track], poses: [c1, c2])[0]
        XCTAssertNil(result.point)
        XCTAssertEqual(result.inliers, [false, false])
    }

    func testBadPoseIndexIsInvalidArgument() {
        let track = [Triangulator.Observation(poseIndex: 0, normalized: .zero),
                     Triangulator.Observation(poseIndex: 5, normalized: .zero)]
        XCTAssertThrowsError(try Triangulator.triangulate([track], poses: [.identity])) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .invalidArgument)
        }
    }

    func testLargeBatchUsesBothThreadsConsistently() throws {
        // Above 2000 tracks the batch is split over two threads; results must not depend on it.
        let s = scene(noise: 0.5)
        let (_, tracks, poses) = tracks(s)
        let many = Array(repeating: tracks, count: 8).flatMap { $0 }
        XCTAssertGreaterThan(many.count, 2000)
        let results = try Triangulator.triangulate(many, poses: poses)
        let single = try Triangulator.triangulate(tracks, poses: poses)
        for (k, result) in results.enumerated() { XCTAssertEqual(result, single[k % tracks.count]) }
    }
}
