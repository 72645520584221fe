import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The whole sparse pipeline on the bundled templeRing-12 capture, checked against its ground truth.
final class EndToEndTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testTempleRingSelfCalibrated() throws {
        let capture = Repository.datasets.appendingPathComponent("templeRing-12")
        let output = try temporaryDirectory().appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesTotal, 12)
        XCTAssertEqual(report.imagesRegistered, 12)
        XCTAssertEqual(report.alignmentRatio, 1.0)
        XCTAssertLessThan(report.meanReprojectionErrorPx, 1.0)
        XCTAssertGreaterThan(report.points3D, 1000)
        XCTAssertEqual(report.stages.filter { !$0.skipped }.map(\.name),
                       ["ingest", "segmentation", "features", "matching", "sparse", "diagnostics", "metric-scale", "upright", "export", "report"])
        XCTAssertEqual(report.stages.filter(\.skipped).map(\.name),
                       ["rematching", "sparse-rematched", "finer-features", "finer-matching", "sparse-finer", "even-turn", "mask-check", "prior-alignment",
                        "dense", "surface", "model"],
                       "every image registered by the first SfM, no priors; --sparse-only: the skip flags of dense and the mesh stages")

        // The diagnosis agrees with the same measures taken on the ground-truth cameras.
        XCTAssertEqual(report.captureKind, "orbit")
        let truth = try Reconstruction.readColmapText(from: capture.appendingPathComponent("gt_sparse"))
        let reference = try XCTUnwrap(CaptureGeometry.measure(
            camFromWorld: truth.images.values.sorted { $0.name < $1.name }.map { $0.camFromWorld! }))
        XCTAssertEqual(report.azimuthCoverageDeg ?? 0, reference.azimuthCoverageDeg, accuracy: 5)
        XCTAssertLessThan(report.elevationSpreadDeg ?? 99, 10)
        XCTAssertEqual(report.images.filter { $0.status == "registered" }.count, 12)
        let page = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("<svg") && page.contains("data:image/jpeg;base64,"))

        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"),
                                          reference: capture.appendingPathComponent("gt_sparse"))
        XCTAssertEqual(comparison.registered, 12)
        XCTAssertGreaterThan(comparison.auc.at5, 80, "pair AUC@5 against ground truth")
        let focal = report.cameras.first!.params[0]
        XCTAssertEqual(focal, 1523, accuracy: 1523 * 0.05, "self-calibrated focal length within 5% of truth")
    }

    func testTempleRingWithFixedIntrinsicsFromZip() throws {
        let work = try temporaryDirectory()
        let capture = Repository.datasets.appendingPathComponent("templeRing-12")
        let zip = work.appendingPathComponent("capture.zip")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import os, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], 'w')
            root = sys.argv[2]
            for name in sorted(os.listdir(os.path.join(root, 'images'))):
                z.write(os.path.join(root, 'images', name), 'capture/images/' + name)
            z.writestr('__MACOSX/capture/._templeR0013.png', b'junk')
            z.writestr('capture/images/broken.png', b'not a png at all')
            z.close()
            """, zip.path, capture.path]
        try python.run()
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0)

        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.fixedIntrinsics = FixedIntrinsics(fx: 1520.4, fy: 1525.9, cx: 302.32, cy: 246.87)
        let output = work.appendingPathComponent("out")
        let report = try ReconstructionPipeline(input: zip, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesTotal, 13)
        XCTAssertEqual(report.rejectedImages.map(\.name), ["broken.png"])
        XCTAssertEqual(report.imagesRegistered, 12)
        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"),
                                          reference: capture.appendingPathComponent("gt_sparse"))
        XCTAssertGreaterThan(comparison.auc.at1, 60, "pair AUC@1 with known intrinsics")
    }

    /// Too few images: one line, and `report.json` still says what the run saw.
    func testTooFewImagesIsOneLineError() throws {
        let work = try temporaryDirectory()
        let input = work.appendingPathComponent("two")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in ["templeR0013.png", "templeR0014.png"] {
            try FileManager.default.copyItem(at: Repository.datasets.appendingPathComponent("templeRing-12/images/\(name)"),
                                             to: input.appendingPathComponent(name))
        }
        let output = work.appendingPathComponent("out")
        XCTAssertThrowsError(try ReconstructionPipeline(input: input, output: output, options: ReconstructionOptions(),
                                                        progress: nil).run()) { error in
            let report = output.appendingPathComponent("report.json").path
            XCTAssertEqual(error as? PipelineError, .tooFewImages(usable: 2, required: 3, input: input.path, report: report))
            XCTAssertFalse("\(error)".contains("\n"))
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json")))
        let report = try XCTUnwrap(json as? [String: Any])
        XCTAssertEqual(report["images_total"] as? Int, 2)
        XCTAssertEqual((report["images"] as? [[String: Any]])?.compactMap { $0["name"] as? String },
                       ["templeR0013.png", "templeR0014.png"])
    }
}
