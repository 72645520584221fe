import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// JPEG previews from the C++ core: size, orientation, the reduced-scale JPEG path and errors.
final class ThumbnailTests: XCTestCase {
    private static let temple = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets/templeRing-12/images/templeR0013.png")

    /// Writes `data` into a fresh temporary directory and returns the size the header declares.
    private func probe(_ data: Data, name: String = "thumb.jpg") throws -> (width: Int, height: Int) {
        let url = try makeBridgeTestDirectory(self).appendingPathComponent(name)
        try data.write(to: url)
        return try ImageMetadata.probeSize(of: url)
    }

    func testPNGBecomesA160By120JPEG() throws {
        let data = try Thumbnail.jpeg(of: Self.temple)
        XCTAssertEqual(Array(data.prefix(2)), [0xFF, 0xD8])
        XCTAssertEqual(Array(data.suffix(2)), [0xFF, 0xD9])
        XCTAssertLessThan(data.count, 20_000)
        let size = try probe(data)
        XCTAssertEqual(size.width, 160)
        XCTAssertEqual(size.height, 120)
    }

    func testSmallImagesAreNotUpscaled() throws {
        let size = try probe(Thumbnail.jpeg(of: Self.temple, maxSide: 1000, quality: 95))
        XCTAssertEqual(size.width, 640)
        XCTAssertEqual(size.height, 480)
    }

    func testJPEGInputTakesTheReducedDecodeAndKeepsTheSize() throws {
        let directory = try makeBridgeTestDirectory(self)
        let jpeg = directory.appendingPathComponent("temple.jpg")
        try Thumbnail.jpeg(of: Self.temple, maxSide: 640, quality: 95).write(to: jpeg)
        for (maxSide, expected) in [(160, (160, 120)), (100, (100, 75)), (333, (333, 250))] {
            let size = try probe(Thumbnail.jpeg(of: jpeg, maxSide: maxSide))
            XCTAssertEqual(size.width, expected.0, "maxSide \(maxSide)")
            XCTAssertEqual(size.height, expected.1, "maxSide \(maxSide)")
        }
    }

    func testEXIFOrientationIsApplied() throws {
        let directory = try makeBridgeTestDirectory(self)
        let plain = directory.appendingPathComponent("plain.jpg")
        let rotated = directory.appendingPathComponent("rotated.jpg")
        try Thumbnail.jpeg(of: Self.temple, maxSide: 640).write(to: plain)
        // Insert an APP1 segment holding a one-entry IFD0: Orientation (0x0112) = 6, 90° clockwise.
        try runBridgeTestPython("""
            import struct, sys
            data = open(sys.argv[1], 'rb').read()
            tiff = b'II*\\x00' + struct.pack('<I', 8) + struct.pack('<H', 1) + struct.pack('<HHIHH', 0x0112, 3, 1, 6, 0) + struct.pack('<I', 0)
            app1 = b'Exif\\x00\\x00' + tiff
            open(sys.argv[2], 'wb').write(data[:2] + b'\\xff\\xe1' + struct.pack('>H', len(app1) + 2) + app1 + data[2:])
            """, arguments: [plain.path, rotated.path])
        XCTAssertEqual(try ImageMetadata.read(from: rotated).orientation, 6)
        let size = try probe(Thumbnail.jpeg(of: rotated))
        XCTAssertEqual(size.width, 120)
        XCTAssertEqual(size.height, 160)
    }

    func testCorruptAndMissingFilesNameTheFile() throws {
        let directory = try makeBridgeTestDirectory(self)
        let corrupt = directory.appendingPathComponent("broken <frame>.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4]).write(to: corrupt)
        XCTAssertThrowsError(try Thumbnail.jpeg(of: corrupt)) { error in
            let error = error as? CVisionError
            XCTAssertEqual(error?.code, .decodeError)
            XCTAssert(error?.message.contains("broken <frame>.png") == true, "\(String(describing: error))")
        }
        let missing = directory.appendingPathComponent("missing.jpg")
        XCTAssertThrowsError(try Thumbnail.jpeg(of: missing)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .ioError)
            XCTAssert((error as? CVisionError)?.message.contains("missing.jpg") == true)
        }
        XCTAssertThrowsError(try Thumbnail.jpeg(of: Self.temple, maxSide: 0)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .invalidArgument)
        }
    }
}
