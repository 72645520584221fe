import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// HEIC/HEIF input through libheif: size, orientation (irot applied once, EXIF orientation
/// ignored), grids, 10-bit, alpha, EXIF focal length, the depth image, thumbnails and broken files,
/// on the synthetic files of Datasets/heic (see its SOURCE.md for what each holds).
final class HEICDecodingTests: XCTestCase {
    private static let folder = Repository.datasets.appendingPathComponent("heic")

    private static let red = [220, 20, 20], green = [20, 220, 20], blue = [20, 20, 220]
    private static let yellow = [220, 220, 20]

    private func sample(_ name: String) -> URL { Self.folder.appendingPathComponent(name) }

    /// Checks pixel (x, y) against an RGB(A) colour, within HEVC's error on flat areas.
    private func assertColour(_ image: PixelImage, _ x: Int, _ y: Int, _ expected: [Int], tolerance: Int = 12,
                              file: StaticString = #filePath, line: UInt = #line) {
        let got = image[x, y].map(Int.init)
        for (c, value) in expected.enumerated() where abs(got[c] - value) > tolerance {
            XCTFail("pixel (\(x), \(y)) is \(got), want \(expected)", file: file, line: line)
            return
        }
    }

    /// Checks the four corners (5 px in) against top-left, top-right, bottom-left, bottom-right.
    private func assertCorners(_ image: PixelImage, _ colours: [[Int]], file: StaticString = #filePath, line: UInt = #line) {
        let (w, h) = (image.width, image.height)
        for (i, (x, y)) in [(5, 5), (w - 6, 5), (5, h - 6), (w - 6, h - 6)].enumerated() {
            assertColour(image, x, y, colours[i], file: file, line: line)
        }
    }

    func testPlainImageDecodesWithItsEXIF() throws {
        let url = sample("plain.heic")
        XCTAssertEqual(ImageFormat.sniff(url), .heic)
        XCTAssertTrue(ImageFormat.heic.isDecodable)
        let image = try PixelImage(contentsOf: url)
        XCTAssertEqual([image.width, image.height], [320, 240])
        assertCorners(image, [Self.red, Self.green, Self.blue, Self.yellow])
        let size = try ImageMetadata.probeSize(of: url)
        XCTAssertEqual([size.width, size.height], [320, 240])
        let exif = try ImageMetadata.read(from: url)
        XCTAssertEqual(exif.orientation, 1)
        XCTAssertEqual(exif.focalLength35mm, 26)
        XCTAssertEqual(exif.focalLengthMM, 4.25, accuracy: 1e-9)
        XCTAssertEqual(exif.make, "Photogrammetry")
        XCTAssertEqual(exif.model, "encode_samples")
    }

    /// The file is coded 320x240 with irot (90 degrees clockwise) and EXIF orientation 6: libheif
    /// rotates it once; applying EXIF too would turn it 180 degrees and back to 320x240.
    func testIrotIsAppliedOnceAndEXIFOrientationIgnored() throws {
        let url = sample("irot.heic")
        let image = try PixelImage(contentsOf: url)
        XCTAssertEqual([image.width, image.height], [240, 320])
        assertCorners(image, [Self.blue, Self.red, Self.yellow, Self.green])
        let size = try ImageMetadata.probeSize(of: url)
        XCTAssertEqual([size.width, size.height], [240, 320])
        let exif = try ImageMetadata.read(from: url)
        XCTAssertEqual(exif.orientation, 6, "reported as written, not applied")
        XCTAssertEqual(exif.focalLength35mm, 26)
        let capture = try XCTUnwrap(try? CaptureLoader.inspect(url).get())
        XCTAssertEqual([capture.0, capture.1], [240, 320])
    }

    func testGridImageIsAssembledAndCropped() throws {
        let image = try PixelImage(contentsOf: sample("grid.heic"))
        XCTAssertEqual([image.width, image.height], [500, 400])
        assertCorners(image, [Self.red, Self.green, Self.blue, Self.yellow])
        // Each tile is one colour: the seams at 256 must fall where the tiles were cut.
        assertColour(image, 250, 250, Self.red)
        assertColour(image, 262, 250, Self.green)
        assertColour(image, 250, 262, Self.blue)
        assertColour(image, 262, 262, Self.yellow)
        XCTAssertNil(try HEICDepthImage.read(from: sample("grid.heic")))
        let exif = try ImageMetadata.read(from: sample("grid.heic"))
        XCTAssertEqual(exif, ImageMetadata.empty, "no EXIF is not an error")
    }

    func testTenBitImageIsReducedToEightBits() throws {
        let image = try PixelImage(contentsOf: sample("tenbit.heic"))
        XCTAssertEqual([image.width, image.height], [320, 240])
        assertCorners(image, [[255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128]])
        assertColour(image, 240, 180, [128, 128, 128], tolerance: 4)
    }

    func testAlphaGoesToTheAlphaChannel() throws {
        let image = try PixelImage(contentsOf: sample("alpha.heic"), channels: 4)
        XCTAssertEqual([image.width, image.height, image.channels], [128, 128, 4])
        XCTAssertLessThan(image[10, 64][image[10, 64].startIndex + 3], 10)
        XCTAssertGreaterThan(image[117, 64][image[117, 64].startIndex + 3], 245)
        assertColour(image, 117, 10, Self.green + [255])
        // Without alpha the colour is the same and opaque.
        let opaque = try PixelImage(contentsOf: sample("plain.heic"), channels: 4)
        assertColour(opaque, 5, 5, Self.red + [255], tolerance: 12)
    }

    /// The depth item: 160x120 lossless 8-bit v(x, y) = round(200 x / 159 + 55 y / 119), uniform
    /// Z from 0.5 to 2.5: z = 0.5 + 2 v / 255.
    func testDepthImageIsReadWithItsRepresentation() throws {
        let depth = try XCTUnwrap(try HEICDepthImage.read(from: sample("depth.heic")))
        XCTAssertEqual([depth.width, depth.height, depth.bitDepth], [160, 120, 8])
        XCTAssertEqual(depth.representation, .uniformZ)
        XCTAssertEqual(depth.values, .depth)
        XCTAssertEqual(try XCTUnwrap(depth.zNear), 0.5, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(depth.zFar), 2.5, accuracy: 1e-9)
        XCTAssertNil(depth.dMin)
        var worst: Float = 0
        for y in 0..<120 {
            for x in 0..<160 {
                let v = (200.0 * Double(x) / 159 + 55.0 * Double(y) / 119).rounded()
                worst = max(worst, abs(depth[x, y] - Float(0.5 + 2 * v / 255)))
            }
        }
        XCTAssertLessThan(worst, 1e-5, "lossless samples, float arithmetic only")
        XCTAssertEqual(depth[0, 0], 0.5, accuracy: 1e-6)
        XCTAssertEqual(depth[159, 119], 2.5, accuracy: 1e-6)
        let colour = try PixelImage(contentsOf: sample("depth.heic"))
        XCTAssertEqual([colour.width, colour.height], [320, 240])
        XCTAssertNil(try HEICDepthImage.read(from: sample("plain.heic")))
    }

    /// Previews take the file's 160x120 thumbnail item when it is large enough, and the full image
    /// (resized) otherwise; both upright.
    func testThumbnailsAreUpright() throws {
        for (name, maxSide, size, corners) in [
            ("plain.heic", 100, [100, 75], [Self.red, Self.green, Self.blue, Self.yellow]),
            ("plain.heic", 300, [300, 225], [Self.red, Self.green, Self.blue, Self.yellow]),
            ("irot.heic", 80, [60, 80], [Self.blue, Self.red, Self.yellow, Self.green]),
        ] {
            let image = try PixelImage(decoding: Thumbnail.jpeg(of: sample(name), maxSide: maxSide, quality: 95))
            XCTAssertEqual([image.width, image.height], size, "\(name) at \(maxSide)")
            assertCorners(image, corners)
        }
    }

    /// A capture folder of HEIC frames: every sample is accepted with its upright size, and the
    /// EXIF 35 mm focal length becomes the prior as for JPEG (26 / 36 of the longer side).
    func testHEICCaptureIsLoadedWithItsFocalLengthPrior() throws {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("images")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let names = ["alpha.heic", "depth.heic", "grid.heic", "irot.heic", "plain.heic", "tenbit.heic"]
        for name in names {
            try FileManager.default.copyItem(at: sample(name), to: folder.appendingPathComponent(name))
        }
        let capture = try CaptureLoader.load(input: folder, workspace: try makeBridgeTestDirectory(self))
        XCTAssertEqual(capture.rejected, [])
        XCTAssertEqual(capture.images.map(\.name), names)
        let sizes = Dictionary(uniqueKeysWithValues: capture.images.map { ($0.name, [$0.width, $0.height]) })
        XCTAssertEqual(sizes, ["alpha.heic": [128, 128], "depth.heic": [320, 240], "grid.heic": [500, 400],
                               "irot.heic": [240, 320], "plain.heic": [320, 240], "tenbit.heic": [320, 240]])
        let focal = capture.images.map { CameraSetup.exifFocalLength($0) }
        XCTAssertEqual(try XCTUnwrap(focal[3]), 26.0 / 36 * 320, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(focal[4]), 26.0 / 36 * 320, accuracy: 1e-9)
        XCTAssertNil(focal[2], "no EXIF: self-calibrated")
    }

    func testBrokenFilesGiveOneLineErrorsNamingTheFile() throws {
        let directory = try makeBridgeTestDirectory(self)
        let data = try Data(contentsOf: sample("plain.heic"))
        let cut = directory.appendingPathComponent("cut.heic")
        try data.prefix(data.count / 2).write(to: cut)
        // The same length and top-level boxes, but the item tables inside 'meta' (after 'ftyp')
        // garbled: libheif's own error, not the truncation check, must name the file.
        var bytes = [UInt8](data)
        let meta = Int(bytes[3])  // the size of 'ftyp', which comes first
        XCTAssertEqual(String(decoding: bytes[(meta + 4)..<(meta + 8)], as: UTF8.self), "meta")
        XCTAssertGreaterThan(Int(bytes[meta + 2]) << 8 | Int(bytes[meta + 3]), 200, "meta longer than the garbled part")
        for i in (meta + 20)..<(meta + 180) { bytes[i] = 0x5A }
        let garbled = directory.appendingPathComponent("garbled.heic")
        try Data(bytes).write(to: garbled)
        // Garbage where the second top-level box should start.
        var broken = [UInt8](data)
        for i in meta..<(meta + 8) { broken[i] = 0xFF }
        let noBox = directory.appendingPathComponent("nobox.heic")
        try Data(broken).write(to: noBox)
        for url in [cut, garbled, noBox] {
            let name = url.lastPathComponent
            for (what, attempt) in [
                ("probe", { _ = try ImageMetadata.probeSize(of: url) }),
                ("decode", { _ = try PixelImage(contentsOf: url) }),
                ("depth", { _ = try HEICDepthImage.read(from: url) }),
                ("thumbnail", { _ = try Thumbnail.jpeg(of: url) }),
            ] as [(String, () throws -> Void)] {
                XCTAssertThrowsError(try attempt(), "\(name) \(what)") { error in
                    let message = "\(error)"
                    XCTAssertTrue(message.hasPrefix(name + ": "), "\(what): \(message)")
                    XCTAssertFalse(message.contains("\n"), "\(what): \(message)")
                }
            }
            guard case .failure(let rejection) = CaptureLoader.inspect(url) else {
                return XCTFail("\(name) must be rejected")
            }
            let expected = ["cut.heic": "truncated HEIF: the file ends after \(data.count / 2) bytes, inside its 'mdat' box",
                            "garbled.heic": "not a readable HEIF file", "nobox.heic": "corrupt HEIF: no box at byte \(meta)"]
            XCTAssertTrue(rejection.message.hasPrefix(expected[name]!), rejection.message)
        }
    }
}
