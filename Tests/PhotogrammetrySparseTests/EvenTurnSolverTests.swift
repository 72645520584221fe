import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// A texture-poor object on a turntable before a busy backdrop, posed from its own frames as one
/// even turn, against the cameras it was rendered with; and the checks that refuse a turn.
final class EvenTurnSolverTests: XCTestCase {
    static let capture = Repository.datasets.appendingPathComponent("turntable-faint-crop-48")

    func testAFaintObjectIsPosedAsOneEvenTurn() throws {
        let reference = try Reconstruction.readColmapText(from: Self.capture.appendingPathComponent("gt_sparse"))
        let names = reference.images.values.map(\.name).sorted()
        let images = names.map { Self.capture.appendingPathComponent("images").appendingPathComponent($0) }
        let masks = names.map {
            Self.capture.appendingPathComponent("masks_auto").appendingPathComponent(($0 as NSString).deletingPathExtension + ".png")
        }
        let camera = try XCTUnwrap(reference.cameras.values.first)
        // The start a capture without EXIF gets: 1.2 longer sides; the principal point is the
        // true one, as the frames are a crop of larger ones.
        let result = try EvenTurnSolver.solve(images: images, masks: masks, focalLength: 1.2 * Double(camera.longerSide),
                                              principalPoint: camera.principalPoint, longerSide: Double(camera.longerSide),
                                              threads: 2)
        XCTAssertNil(result.refusal)
        let model = result.model(camera: camera, names: names)
        let comparison = PoseComparison(model: model, reference: reference)
        XCTAssertEqual(comparison.registered, 48)
        // The mapper places none of these frames right (AUC@5 0); COLMAP makes no model.
        XCTAssertGreaterThan(comparison.auc.at5, 70, "\(comparison.jsonString())")
        XCTAssertEqual(result.motion.focalLength, 622.2, accuracy: 0.1 * 622.2)
        XCTAssertEqual(abs(result.motion.angles[1] - result.motion.angles[0]) * 180 / .pi, 7.5, accuracy: 0.1)
        XCTAssertGreaterThan(result.inlierShare, 0.8)
    }

    func testTheWeakestLinkIsACut() {
        // Frames 0-3 share points with their neighbours, but 1 and 2 share none: a cut.
        let observations: [TurnMotion.Observation] = [
            .init(frame: 0, point: 0, xy: .zero), .init(frame: 1, point: 0, xy: .zero),
            .init(frame: 2, point: 1, xy: .zero), .init(frame: 3, point: 1, xy: .zero),
            .init(frame: 0, point: 2, xy: .zero), .init(frame: 1, point: 2, xy: .zero),
        ]
        let motion = TurnMotion(rig: .zero, angles: [0, 0.1, 0.2, 0.3], focalLength: 100, principalPoint: .zero,
                                points: Array(repeating: .zero, count: 3), observations: observations)
        let link = EvenTurnSolver.weakestLink(motion, frames: 4)
        XCTAssertEqual(link.frame, 1)
        XCTAssertEqual(link.tracks, 0)
    }

    func testKeepingObservationsDropsPointsLeftWithOne() {
        let observations: [TurnMotion.Observation] = [
            .init(frame: 0, point: 0, xy: .zero), .init(frame: 1, point: 0, xy: .zero),
            .init(frame: 0, point: 1, xy: .zero), .init(frame: 1, point: 1, xy: .zero), .init(frame: 2, point: 1, xy: .zero),
        ]
        let motion = TurnMotion(rig: .zero, angles: [0, 0.1, 0.2], focalLength: 100, principalPoint: .zero,
                                points: [SIMD3(1, 0, 0), SIMD3(2, 0, 0)], observations: observations)
        let kept = EvenTurnSolver.keeping(motion, observations: [0, 3, 4])
        XCTAssertEqual(kept.points, [SIMD3(2, 0, 0)])
        XCTAssertEqual(kept.observations.map(\.frame), [1, 2])
        XCTAssertEqual(kept.observations.map(\.point), [0, 0])
    }
}
