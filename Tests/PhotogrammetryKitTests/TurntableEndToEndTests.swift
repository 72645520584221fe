import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A fixed camera over a turning object (Datasets/turntable-temple-12): the static background
/// must not drive the poses. Without static-feature rejection the background's matches say the
/// camera never moved and no model comes out.
final class TurntableEndToEndTests: XCTestCase {
    static let capture = Repository.datasets.appendingPathComponent("turntable-temple-12")

    /// Runs the pipeline and compares its model with the ground truth; a model that cannot be
    /// read is an error, never a missing comparison a test could pass over.
    private func run(_ mask: MaskSelection, staticFeatures: Bool = true) throws -> (Report, PoseComparison) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-tt-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: output) }
        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.mask = mask
        options.matching.staticFeatures.enabled = staticFeatures
        let report = try ReconstructionPipeline(input: Self.capture, output: output, options: options, progress: nil).run()
        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"),
                                          reference: Self.capture.appendingPathComponent("gt_sparse"))
        return (report, comparison)
    }

    func testNoMaskDiscardsTheStaticBackground() throws {
        let (report, comparison) = try run(.disabled)
        XCTAssertEqual(report.captureKind, "turntable")
        XCTAssertGreaterThan(report.staticFeaturesDiscarded, 5000, "the background's features are static")
        XCTAssertEqual(report.turntableEvidence, "static features")
        XCTAssertGreaterThanOrEqual(report.imagesRegistered, 11)
        XCTAssertGreaterThan(comparison.auc.at5, 70, "pair AUC@5 against ground truth")
        // A 90-degree arc of the turn, at one height.
        XCTAssertEqual(report.azimuthCoverageDeg ?? 0, 82, accuracy: 10)
        XCTAssertLessThan(report.elevationSpreadDeg ?? 99, 5)
        XCTAssertTrue(report.advice.contains { $0.hasPrefix("Coverage:") }, "\(report.advice)")
        // The poses pass the pose check: a right model of an open arc is not "poses unreliable".
        let check = try XCTUnwrap(report.poseCheck)
        XCTAssertTrue(check.passed, "\(check)")
        XCTAssertEqual(check.checks.filter { $0.name.hasPrefix("turn_") }.count, 4)
        XCTAssertTrue(report.images.filter { $0.status == "registered" }.allSatisfy { ($0.confidence ?? 0) >= 0.5 })
    }

    func testWithoutRejectionTheBackgroundWins() throws {
        // The control: the same capture with static-feature rejection off fails to start or
        // gives a model far off. Any other failure (no model to compare) fails the test.
        do {
            let (report, comparison) = try run(.disabled, staticFeatures: false)
            XCTAssertLessThan(comparison.auc.at5, 30, "registered \(report.imagesRegistered)")
        } catch let error as PipelineError where error == .noInitialPair {
            // The background's matches say the camera never moved: no pair to start from.
        }
    }

    func testMasksCarriedByTheCaptureArePickedUp() throws {
        let (report, comparison) = try run(.automatic)
        XCTAssertEqual(report.staticFeaturesDiscarded, 0, "the masks leave no background")
        XCTAssertEqual(report.captureKind, "turntable", "the background outside the masks stands still")
        XCTAssertEqual(report.turntableEvidence, "still background")
        XCTAssertEqual(report.imagesRegistered, 12)
        XCTAssertGreaterThan(comparison.auc.at5, 80)
        XCTAssertNotNil(report.images.first?.features)
    }
}
