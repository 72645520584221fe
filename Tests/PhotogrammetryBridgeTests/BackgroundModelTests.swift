import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// The per-pixel temporal background model on drawn frames whose true masks are known.
final class BackgroundModelTests: XCTestCase {
    /// A textureless object turning before a busy backdrop: what moved is found, and the hub it
    /// covers in every frame (never changing, so never "moving") is found by enclosure.
    func testTurningTexturelessObjectIsSegmentedWithItsStillCore() throws {
        let scene = SyntheticTurntableFrames()
        let urls = try scene.write(to: try makeBridgeTestDirectory(self))
        let model = try BackgroundModel(images: urls, threads: 2)
        XCTAssertEqual(model.stats.frames, scene.frames)
        XCTAssertGreaterThan(model.stats.stableShare, 0.8, "a fixed camera keeps its textured background still")
        XCTAssertGreaterThan(model.stats.stillStructureShare, 0.3)
        let hubShare = Double.pi * scene.hubRadius * scene.hubRadius / Double(scene.width * scene.height)
        XCTAssertEqual(model.stats.coreShare, hubShare, accuracy: 0.3 * hubShare, "the hub is the enclosed core")
        var ious: [Double] = []
        for i in 0..<scene.frames {
            ious.append(SyntheticTurntableFrames.iou(try model.workingMask(i), scene.trueMask(i)))
        }
        XCTAssertGreaterThan(ious.min() ?? 0, 0.85, "per-frame IoU \(ious.map { String(format: "%.2f", $0) })")
    }

    /// The full-size mask file: 8-bit, the frame's size, 255 on the object.
    func testMaskFileIsTheFramesSize() throws {
        var scene = SyntheticTurntableFrames()
        scene.frames = 12
        let folder = try makeBridgeTestDirectory(self)
        let urls = try scene.write(to: folder)
        let model = try BackgroundModel(images: urls)
        let out = folder.appendingPathComponent("mask-03.png")
        let share = try model.writeMask(3, to: out)
        let size = try ImageMetadata.probeSize(of: out)
        XCTAssertEqual(size.width, scene.width)
        XCTAssertEqual(size.height, scene.height)
        let truth = Double(scene.trueMask(3).filter { $0 }.count) / Double(scene.width * scene.height)
        XCTAssertEqual(share, truth, accuracy: 0.2 * truth)
        let jpeg = try Thumbnail.maskedJPEG(of: urls[3], mask: out, maxSide: 120)
        XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8])
    }

    /// A camera moving along the backdrop keeps almost none of it still.
    func testMovingCameraLeavesNoStableBackground() throws {
        var scene = SyntheticTurntableFrames()
        scene.cameraStep = 6
        let urls = try scene.write(to: try makeBridgeTestDirectory(self))
        let model = try BackgroundModel(images: urls, threads: 2)
        XCTAssertLessThan(model.stats.stableShare, 0.1)
        XCTAssertGreaterThan(model.stats.texturedShare, 0.2)
        XCTAssertLessThan(model.stats.stillStructureShare, 0.001, "every textured pixel changes in some frame")
    }

    /// Frames of different shapes are not one fixed camera's: the message names the file.
    func testFramesOfAnotherShapeAreRefused() throws {
        var scene = SyntheticTurntableFrames()
        scene.frames = 4
        let folder = try makeBridgeTestDirectory(self)
        var urls = try scene.write(to: folder)
        let other = folder.appendingPathComponent("odd.png")
        try TestPNG.writeRGB([SIMD3<UInt8>](repeating: .zero, count: 50 * 40), width: 50, height: 40, to: other)
        urls.append(other)
        XCTAssertThrowsError(try BackgroundModel(images: urls)) { error in
            XCTAssertTrue("\(error)".contains("odd.png"), "\(error)")
        }
    }
}
