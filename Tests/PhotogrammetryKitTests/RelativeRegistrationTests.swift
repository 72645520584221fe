import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Frames that PnP cannot register (too few triangulated points) join from their pair's
/// essential matrix; models that share images align by those images' poses.
final class RelativeRegistrationTests: XCTestCase {
    /// Two arcs of a ring whose only link, images 5 and 6, is 20 matches: too few points for
    /// PnP (30), enough for the pair's essential matrix and the distance.
    func makeWeakLink(relative: Bool) -> (scene: SyntheticScene, mapper: IncrementalMapper) {
        let (scene, mapper) = ModelMergingTests.makeProblem(linkMatches: 20, merge: false)
        var options = mapper.options
        options.relativeRegistrationMinMatches = relative ? 15 : 0
        let rebuilt = IncrementalMapper(reconstruction: mapper.blankModel, tracks: mapper.tracks, graph: mapper.graph,
                                        colors: mapper.colors, cameraHasPrior: [scene.camera.id: true],
                                        nearDuplicates: mapper.isNearDuplicate, options: options)
        return (scene, rebuilt)
    }

    func testAFrameLinkedByTwentyMatchesJoinsFromItsPair() throws {
        let (scene, mapper) = makeWeakLink(relative: true)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 12, "both arcs in one model without merging")
        XCTAssertGreaterThanOrEqual(mapper.numRegisteredByRelativePose, 1)
        XCTAssertLessThan(ModelMergingTests.maxPairError(model, scene), 0.5, "every pair of cameras within half a degree")
    }

    func testWithoutItTheLinkSplitsTheRing() throws {
        let (_, mapper) = makeWeakLink(relative: false)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 6, "PnP alone stops at the weak link")
        XCTAssertEqual(mapper.numRegisteredByRelativePose, 0)
    }

    /// The distance along a direction and the translation under a known rotation, exactly.
    func testMinimalSolversRecoverTheTranslation() {
        let translation = SIMD3(0.3, -0.2, 1.5)
        let points = [SIMD3(0.5, 0.1, 4.0), SIMD3(-1.0, 0.7, 6.0), SIMD3(0.2, -0.9, 5.0)]
        let rays = points.map { p -> SIMD2<Double> in
            let x = p + translation
            return SIMD2(x.x / x.z, x.y / x.z)
        }
        let solved = IncrementalMapper.translation(rotated: Array(points.prefix(2)), rays: Array(rays.prefix(2)))
        XCTAssertLessThan(length(solved! - translation), 1e-9)
        let direction = normalize(translation)
        let distance = IncrementalMapper.distanceAlong(direction, base: points[2], ray: rays[2])
        XCTAssertEqual(distance!, length(translation), accuracy: 1e-9)
    }

    /// Poses of shared images in a model moved by a similarity give that similarity back; one
    /// image turned by 10° makes them disagree.
    func testSharedImagesAlignTwoModelsAndADisagreeingOneRefuses() {
        let (scene, here) = ModelMergingTests.makeProblem(linkMatches: 0)
        let (_, there) = ModelMergingTests.makeProblem(linkMatches: 0)
        let truth = Similarity3(scale: 2.5, rotation: Rotation.matrix(angleAxis: SIMD3(0.3, -0.5, 0.2)),
                                translation: SIMD3(1, -2, 3))
        let shared = [4, 5, 6, 7]
        for i in shared {
            let pose = scene.reconstruction.images[ImageID(i + 1)]!.camFromWorld!
            here.reconstruction.images[ImageID(i + 1)]!.camFromWorld = pose
            there.reconstruction.images[ImageID(i + 1)]!.camFromWorld = truth.inverse.transform(pose)
        }
        let fit = here.alignment(of: there, sharedImages: shared)
        XCTAssertNotNil(fit)
        XCTAssertEqual(fit?.scale ?? 0, truth.scale, accuracy: 1e-9)
        XCTAssertLessThan(length((fit?.translation ?? .zero) - truth.translation), 1e-9)
        XCTAssertLessThan(Rotation.angleDegrees(between: fit?.rotation ?? .identity, and: truth.rotation), 1e-6)

        var turned = there.reconstruction.images[ImageID(7 + 1)]!.camFromWorld!
        turned.rotation = Rotation.matrix(angleAxis: SIMD3(0, 10 * .pi / 180, 0)) * turned.rotation
        there.reconstruction.images[ImageID(7 + 1)]!.camFromWorld = turned
        XCTAssertNil(here.alignment(of: there, sharedImages: shared), "a shared image 10° off refuses the merge")
        XCTAssertNil(here.alignment(of: there, sharedImages: [4, 5]), "two images cannot check their own fit")
    }
}
