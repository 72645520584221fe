import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Fixed-camera captures segment themselves: masks from the frames' own still background, used
/// as a user's would be; a user's masks win, `--auto-mask off` and a moving camera make none.
final class AutomaticMasksTests: XCTestCase {
    private func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-am-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Ingest, segmentation, features and matching on drawn frames; the pipeline's scene after.
    private func match(_ scene: SyntheticTurntableFrames, userMasks: Bool = false,
                       _ configure: (inout ReconstructionOptions) -> Void = { _ in }) throws -> (ReconstructionScene, URL) {
        let capture = try folder("capture")
        let images = capture.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let urls = try scene.write(to: images)
        if userMasks {
            let masks = capture.appendingPathComponent("masks")
            try FileManager.default.createDirectory(at: masks, withIntermediateDirectories: true)
            for (i, url) in urls.enumerated() {
                try TestPNG.writeGrey(scene.trueMask(i).map { $0 ? 255 : 0 }, width: scene.width, height: scene.height,
                                      to: masks.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".png"))
            }
        }
        let output = try folder("out")
        var options = ReconstructionOptions()
        options.numThreads = 2
        options.automaticMasks.enabled = true
        configure(&options)
        let pipeline = ReconstructionPipeline(input: capture, output: output, options: options, progress: nil)
        try pipeline.runMatching()
        return (pipeline.scene, output)
    }

    func testFixedCameraMasksItselfAndTheRunUsesTheMasks() throws {
        let frames = SyntheticTurntableFrames()
        let (scene, output) = try match(frames)
        let summary = try XCTUnwrap(scene.report.automaticMasks)
        XCTAssertTrue(summary.used, summary.reason)
        XCTAssertEqual(summary.frames, frames.frames)
        XCTAssertGreaterThan(summary.stableShare ?? 0, 0.8)
        let folder = output.appendingPathComponent("masks")
        XCTAssertEqual(scene.masks, .directory(folder))
        XCTAssertEqual(summary.folder, "masks")
        var ious: [Double] = []
        for i in 0..<frames.frames {
            let mask = try PixelImage(contentsOf: folder.appendingPathComponent(String(format: "frame-%02d.png", i)))
            let grey = stride(from: 0, to: mask.pixels.count, by: 3).map { mask.pixels[$0] }
            ious.append(SyntheticTurntableFrames.iou(grey, frames.trueMask(i)))
        }
        XCTAssertGreaterThan(ious.min() ?? 0, 0.85, "\(ious)")
        let truthShare = Double(frames.trueMask(0).filter { $0 }.count) / Double(frames.width * frames.height)
        XCTAssertEqual(summary.meanObjectShare ?? 0, truthShare, accuracy: 0.2 * truthShare)
        XCTAssertEqual(scene.report.masks?.contains(folder.path), true, "features ran under the masks: \(scene.report.masks ?? "-")")
    }

    func testTheCapturesOwnMasksWin() throws {
        let (scene, output) = try match(SyntheticTurntableFrames(), userMasks: true)
        let summary = try XCTUnwrap(scene.report.automaticMasks)
        XCTAssertFalse(summary.used)
        XCTAssertTrue(summary.reason.contains("own masks"), summary.reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("masks").path))
        guard case .directory(let url)? = scene.masks else { return XCTFail("the capture's masks are used") }
        XCTAssertEqual(url.lastPathComponent, "masks")
        XCTAssertNotEqual(url.deletingLastPathComponent().standardizedFileURL, output.standardizedFileURL)
    }

    func testAutoMaskOffAndMaskNoneMakeNoMasks() throws {
        for configure in [{ (options: inout ReconstructionOptions) in options.automaticMasks.enabled = false },
                          { (options: inout ReconstructionOptions) in options.mask = .disabled }] {
            let (scene, output) = try match(SyntheticTurntableFrames(), configure)
            XCTAssertEqual(scene.report.automaticMasks?.used, false)
            XCTAssertNil(scene.masks)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("masks").path))
        }
    }

    func testAMovingCameraGetsNoMasks() throws {
        var frames = SyntheticTurntableFrames()
        frames.cameraStep = 6
        let (scene, _) = try match(frames)
        let summary = try XCTUnwrap(scene.report.automaticMasks)
        XCTAssertFalse(summary.used)
        XCTAssertTrue(summary.reason.contains("moving camera"), summary.reason)
        XCTAssertNil(scene.masks)
    }

    /// End to end on a real turntable (Datasets/turntable-temple-12) with its masks left behind:
    /// the automatic masks match the drawn ones and the poses match the ground truth as well as
    /// with the drawn masks (AUC@5 above 80 there; 82.9 here when measured).
    func testATurntableWithoutItsMasksMasksItselfAndRegisters() throws {
        let source = Repository.datasets.appendingPathComponent("turntable-temple-12")
        let capture = try folder("tt12")
        for item in ["images", "gt_sparse"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(item), to: capture.appendingPathComponent(item))
        }
        let output = try folder("tt12-out")
        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.automaticMasks.enabled = true
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        let summary = try XCTUnwrap(report.automaticMasks)
        XCTAssertTrue(summary.used, summary.reason)
        XCTAssertEqual(report.imagesRegistered, 12)
        XCTAssertEqual(report.captureKind, "turntable")
        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"), reference: capture.appendingPathComponent("gt_sparse"))
        XCTAssertGreaterThan(comparison.auc.at5, 75)
        var ious: [Double] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: source.appendingPathComponent("masks").path).sorted() {
            let truth = try PixelImage(contentsOf: source.appendingPathComponent("masks/" + name))
            let mask = try PixelImage(contentsOf: output.appendingPathComponent("masks/" + name))
            XCTAssertEqual(mask.width, truth.width)
            var both = 0, either = 0
            for i in stride(from: 0, to: truth.pixels.count, by: 3) {
                let t = truth.pixels[i] >= 128, m = mask.pixels[i] >= 128
                both += t && m ? 1 : 0
                either += t || m ? 1 : 0
            }
            ious.append(Double(both) / Double(max(1, either)))
        }
        XCTAssertEqual(ious.count, 12)
        XCTAssertGreaterThan(ious.reduce(0, +) / Double(ious.count), 0.75, "\(ious)")
        let page = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("<h2>Automatic masks</h2>"))
        XCTAssertEqual(page.components(separatedBy: "alt=\"mask of ").count - 1, 4, "four frames with their masks")
    }
}
