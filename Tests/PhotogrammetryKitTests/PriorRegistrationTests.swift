import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Frames with too few triangulated points for PnP join at their pose prior (an ARKit pose),
/// refined against the model's points so that the prior's noise is corrected.
final class PriorRegistrationTests: XCTestCase {
    /// Two arcs of a ring linked only by images 4 and 5 matching image 6 with 20 matches each:
    /// image 6 sees about 20 triangulated points, too few for PnP (30); registration from a pair
    /// is off, so only a prior can carry the model across.
    func makeProblem(priors: Bool) -> (scene: SyntheticScene, mapper: IncrementalMapper) {
        let (scene, mapper) = ModelMergingTests.makeProblem(arcs: [0..<6, 6..<12], links: [(4, 6, 20), (5, 6, 20)],
                                                            merge: false)
        var options = mapper.options
        options.relativeRegistrationMinMatches = 0
        let rebuilt = IncrementalMapper(reconstruction: mapper.blankModel, tracks: mapper.tracks, graph: mapper.graph,
                                        colors: mapper.colors, cameraHasPrior: [scene.camera.id: true],
                                        nearDuplicates: mapper.isNearDuplicate, options: options)
        if priors { rebuilt.priorPoses = Self.noisyPriors(scene) }
        return (scene, rebuilt)
    }

    /// The true poses in another frame (scale 2.5, turned, moved), each with 1° of rotation
    /// noise and a centre off by 2 % of the ring's diameter, seeded.
    static func noisyPriors(_ scene: SyntheticScene) -> [Rigid3?] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        func direction() -> SIMD3<Double> {
            let v = SIMD3(uniform(), uniform(), uniform())
            return v / (v * v).sum().squareRoot()
        }
        let truth = scene.imageIDs.map { scene.reconstruction.images[$0]!.camFromWorld! }
        let centres = truth.map(\.centerInWorld)
        let diameter = centres.map { c in centres.map { ((c - $0) * (c - $0)).sum().squareRoot() }.max()! }.max()!
        let frame = Similarity3(scale: 2.5, rotation: Rotation.matrix(angleAxis: SIMD3(0.3, -0.8, 0.4)),
                                translation: SIMD3(4, -1, 7))
        return truth.map { pose in
            let noisy = Rigid3(rotation: Rotation.matrix(angleAxis: direction() * (.pi / 180)) * pose.rotation,
                               translation: .zero)
            let centre = pose.centerInWorld + direction() * (0.02 * diameter)
            let moved = Rigid3(rotation: noisy.rotation, translation: -(noisy.rotation * centre))
            return frame.transform(moved)
        }
    }

    func testFramesPnPCannotRegisterJoinAtTheirPriorsAndTheNoiseIsCorrected() throws {
        let (scene, mapper) = makeProblem(priors: true)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 12, "both arcs in one model")
        XCTAssertGreaterThanOrEqual(mapper.numRegisteredFromPriors, 1)
        XCTAssertLessThan(ModelMergingTests.maxPairError(model, scene), 0.3,
                          "every pair within 0.3° although the priors are 1° off")
    }

    func testWithoutPriorsTheWeakLinkSplitsTheRing() throws {
        let (_, mapper) = makeProblem(priors: false)
        let model = try mapper.run()
        XCTAssertEqual(model.registeredImageIDs.count, 6, "PnP alone stops at the weak link")
        XCTAssertEqual(mapper.numRegisteredFromPriors, 0)
    }
}
