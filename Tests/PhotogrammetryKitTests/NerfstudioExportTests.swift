import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// OUTPUT as nerfstudio loads it (`ns-train ... --data OUTPUT`): every `file_path` found from
/// OUTPUT and `ply_file_path` read, as nerfstudio's data parser does it
/// (scripts/analysis/nerfstudio-load.py), for folder, zip and video captures, after OUTPUT and
/// the capture move together and after the capture is gone; our own reader reads it back.
final class NerfstudioExportTests: XCTestCase {
    /// What scripts/analysis/nerfstudio-load.py reports for `data` (it fails the test when it
    /// finds an image or the cloud missing or unreadable).
    private func nerfstudioLoad(_ data: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let script = Repository.root.appendingPathComponent("scripts/analysis/nerfstudio-load.py").path
        let output = try XCTUnwrap(PythonCheck.run("import runpy, sys\nsys.argv = [\(BadInputs.python(script)), \(BadInputs.python(data.path))]\n"
                                                   + "runpy.run_path(sys.argv[0], run_name='__main__')", modules: ["PIL"],
                                                   file: file, line: line), file: file, line: line)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], file: file, line: line)
    }

    private func reconstruct(_ input: URL, _ output: URL, logs: URL) throws {
        let outcome = try BuiltProgram.run(["reconstruct", input.path, output.path, "--detail", "preview", "--sparse-only",
                                            "--progress", "none"], logs: logs)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
    }

    /// Every frame found, the cloud holding the model's points, the images those the model registered.
    private func assertLoads(_ output: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let registered = model.images.values.filter(\.isRegistered).count
        XCTAssertGreaterThanOrEqual(registered, 3, file: file, line: line)
        let loaded = try nerfstudioLoad(output, file: file, line: line)
        XCTAssertEqual(loaded["frames"] as? Int, registered, "\(loaded)", file: file, line: line)
        XCTAssertEqual(loaded["found"] as? Int, registered, "\(loaded)", file: file, line: line)
        XCTAssertEqual(loaded["ply_points"] as? Int, model.points3D.count, "\(loaded)", file: file, line: line)
        XCTAssertEqual(loaded["ply_has_colours"] as? Bool, true, file: file, line: line)
        XCTAssertEqual((loaded["size_mismatch"] as? [Any])?.count, 0, "\(loaded)", file: file, line: line)
    }

    /// A folder capture: hard links in images/, found from OUTPUT, and still after OUTPUT and the
    /// capture move together and after the capture is deleted. Our reader reads the file back,
    /// and as pose priors it names every image of the capture.
    func testAFolderCaptureLoadsFromOutputWhereverItMoves() throws {
        let root = try makeBridgeTestDirectory(self)
        let capture = root.appendingPathComponent("captures/temple/images")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        let names = try BadInputs.copyGoodImages(5, to: capture)
        let output = root.appendingPathComponent("out")
        try reconstruct(capture.deletingLastPathComponent(), output, logs: root)
        try assertLoads(output)

        let transforms = try NerfstudioTransforms.load(from: output.appendingPathComponent("transforms.json"))
        XCTAssertEqual(transforms.plyFilePath, "sparse_pc.ply")
        for frame in transforms.frames {
            XCTAssertTrue(frame.filePath.hasPrefix("images/templeR00"), frame.filePath)
            // A hard link: the capture's file itself, no copy.
            let ours = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent(frame.filePath).path)
            let theirs = try FileManager.default.attributesOfItem(atPath: capture.appendingPathComponent(String(frame.filePath.dropFirst(7))).path)
            XCTAssertEqual(ours[.systemFileNumber] as? Int, theirs[.systemFileNumber] as? Int, frame.filePath)
        }
        let images = try CaptureLoader.load(input: capture, workspace: root.appendingPathComponent("w")).images
        let priors = try PosePriors.load(output.appendingPathComponent("transforms.json"), images: images)
        XCTAssertEqual(priors.byName.count, transforms.frames.count)
        XCTAssertEqual(priors.unmatchedFrames, 0)
        XCTAssertTrue(Set(priors.byName.keys).isSubset(of: Set(names)))

        // Moved together into another folder, then the capture deleted.
        let moved = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: output, to: moved.appendingPathComponent("out"))
        try FileManager.default.moveItem(at: root.appendingPathComponent("captures"), to: moved.appendingPathComponent("captures"))
        try assertLoads(moved.appendingPathComponent("out"))
        try FileManager.default.removeItem(at: moved.appendingPathComponent("captures"))
        try assertLoads(moved.appendingPathComponent("out"))
    }

    /// A zip capture, whose unpacked images go with work/input at the end of the run.
    func testAZipCaptureLoadsAfterItsUnpackedCopyIsGone() throws {
        let root = try makeBridgeTestDirectory(self)
        let parts = root.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        let names = try BadInputs.copyGoodImages(5, to: parts)
        let zip = root.appendingPathComponent("temple.zip")
        try BadInputs.writeZip(zip, files: names.map { ("temple/images/\($0)", parts.appendingPathComponent($0)) })
        let output = root.appendingPathComponent("out")
        try reconstruct(zip, output, logs: root)
        XCTAssertFalse(FileManager.default.fileExists(atPath: OutputLayout.unpackedInput(in: output.appendingPathComponent("work")).path))
        try assertLoads(output)
    }

    /// A video capture, whose keyframes live in work/video: found from images/ after work/ is deleted.
    func testAVideoCaptureLoadsWithoutItsWorkFolder() throws {
        let root = try makeBridgeTestDirectory(self)
        let output = root.appendingPathComponent("out")
        try reconstruct(Repository.datasets.appendingPathComponent("video/templeRing-12.mp4"), output, logs: root)
        try FileManager.default.removeItem(at: output.appendingPathComponent("work"))
        try assertLoads(output)
    }

    /// HEIC and a JPEG with an EXIF rotation become upright JPEGs named after them, with the
    /// pixels the pipeline decoded; a plain JPEG and PNG are linked as they are.
    func testFilesNerfstudioCannotReadAsThePipelineDidAreConverted() throws {
        let root = try makeBridgeTestDirectory(self)
        let plain = root.appendingPathComponent("plain.jpg"), rotated = root.appendingPathComponent("rotated.jpg")
        try BadInputs.jpeg().write(to: plain)
        // An APP1 segment holding Orientation (0x0112) = 6, 90 degrees clockwise.
        try runBridgeTestPython("""
            import struct, sys
            data = open(sys.argv[1], 'rb').read()
            tiff = b'II*\\x00' + struct.pack('<I', 8) + struct.pack('<H', 1) + struct.pack('<HHIHH', 0x0112, 3, 1, 6, 0) + struct.pack('<I', 0)
            app1 = b'Exif\\x00\\x00' + tiff
            open(sys.argv[2], 'wb').write(data[:2] + b'\\xff\\xe1' + struct.pack('>H', len(app1) + 2) + app1 + data[2:])
            """, arguments: [plain.path, rotated.path])
        let heic = Repository.datasets.appendingPathComponent("heic/plain.heic")
        let png = BadInputs.goodImages.appendingPathComponent("templeR0013.png")
        var images: [CaptureImage] = []
        for (name, url) in [("a/plain.jpg", plain), ("rotated.jpg", rotated), ("photo.heic", heic), ("photo.png", png),
                          ("photo.jpg", plain), ("other.heic", heic)] {
            let size = try ImageMetadata.probeSize(of: url)
            images.append(CaptureImage(name: name, url: url, width: size.width, height: size.height, exif: try ImageMetadata.read(from: url)))
        }
        let paths = ExportStage.exportedImagePaths(images)
        // photo.jpg is taken by a photo of the capture: photo.heic keeps its whole name.
        XCTAssertEqual(paths, ["a/plain.jpg": "a/plain.jpg", "rotated.jpg": "rotated.jpg", "photo.heic": "photo.heic.jpg",
                               "photo.png": "photo.png", "photo.jpg": "photo.jpg", "other.heic": "other.jpg"])
        let folder = root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let placed = try ExportStage.writeImages(images, paths: paths, into: folder)
        XCTAssertEqual(placed, [.link, .convert, .convert, .link, .link, .convert])
        for image in images where ExportStage.needsConversion(image) {
            let written = folder.appendingPathComponent(paths[image.name]!)
            XCTAssertEqual(ImageFormat.sniff(written), .jpeg)
            XCTAssertLessThanOrEqual(try ImageMetadata.read(from: written).orientation, 1, "no rotation left for a reader to miss")
            let ours = try PixelImage(contentsOf: written), pipeline = try PixelImage(contentsOf: image.url)
            XCTAssertEqual([ours.width, ours.height], [image.width, image.height])
            let difference = zip(ours.pixels, pipeline.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            XCTAssertLessThan(Double(difference) / Double(ours.pixels.count), 3, "\(image.name): the pipeline's pixels, up to JPEG's loss")
        }
        // Our reader finds each converted file's image (pose priors, texture --priors).
        let matcher = ImageNameMatcher(images.map(\.name))
        for image in images { XCTAssertEqual(matcher.match("images/" + paths[image.name]!), image.name) }
        XCTAssertTrue(ExportStage.isInside("a/b.jpg"))
        for hostile in ["../x.jpg", "/etc/x.jpg", "a/../../x.jpg", "a//b.jpg", "./x.jpg"] { XCTAssertFalse(ExportStage.isInside(hostile), hostile) }
    }
}
