import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Models are stood upright before export: the capture's up along +Y, the centre at the origin,
/// the first photo's side on +Z; projections unchanged.
final class UprightFrameTests: XCTestCase {
    func testARingTurnedAnyWayComesBackUprightAndCentred() throws {
        var options = SyntheticScene.Options()
        options.numImages = 12
        let scene = SyntheticScene(options)
        // The scene has z up and its cameras look at the origin; turn and move it arbitrarily.
        let turn = Similarity3(scale: 1, rotation: Rotation.matrix(angleAxis: SIMD3(0.9, -1.7, 0.4)),
                               translation: SIMD3(3, -7, 11))
        let model = scene.reconstruction.transformed(by: turn)
        let upright = try XCTUnwrap(model.uprightTransform())
        let standing = model.transformed(by: upright)

        let up = upright.rotation * (turn.rotation * SIMD3(0, 0, 1))
        XCTAssertGreaterThan(dot(up, SIMD3(0, 1, 0)), cos(2 * Double.pi / 180), "the scene's up is +Y within 2°")
        // The object centre (where the optical axes meet, near the true origin) is the origin.
        XCTAssertLessThan(length(upright.apply(turn.apply(.zero))), 0.3)
        // The first camera stands on +Z: its horizontal offset points along +Z.
        let first = standing.images[ImageID(1)]!.camFromWorld!.centerInWorld
        XCTAssertGreaterThan(first.z, 0)
        XCTAssertLessThan(abs(first.x), 1e-6 * length(first))
        // Projections do not change.
        for (id, point) in model.points3D.prefix(20) {
            for element in point.track {
                let before = try XCTUnwrap(model.reprojectionError(of: element, position: point.position))
                let after = try XCTUnwrap(standing.reprojectionError(of: element, position: standing.points3D[id]!.position))
                XCTAssertEqual(after, before, accuracy: 1e-6)
            }
        }
    }

    func testTwoCamerasCannotTellUp() {
        var options = SyntheticScene.Options()
        options.numImages = 2
        XCTAssertNil(SyntheticScene(options).reconstruction.uprightTransform())
    }

    func testSimilarityRoundTripsThroughJSON() throws {
        let s = Similarity3(scale: 1.5, rotation: Rotation.matrix(angleAxis: SIMD3(0.1, 0.2, -0.3)), translation: SIMD3(1, 2, 3))
        XCTAssertEqual(try JSONDecoder().decode(Similarity3.self, from: JSONEncoder().encode(s)), s)
    }
}
