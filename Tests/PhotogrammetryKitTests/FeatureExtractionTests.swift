import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class FeatureExtractionTests: XCTestCase {
    func testExtractsFeaturesInFullImageWithGreyColours() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("blobs.pgm")
        try SyntheticGrayImage.blobs(width: 640, height: 480, count: 700, seed: 1).writePGM(to: url)
        let features = try FeatureSet.extract(imageURL: url)
        XCTAssertEqual(features.imageWidth, 640)
        XCTAssertEqual(features.imageHeight, 480)
        XCTAssertGreaterThan(features.count, 300)
        for keypoint in features.keypoints {
            XCTAssert(keypoint.x >= 0 && keypoint.x <= 640 && keypoint.y >= 0 && keypoint.y <= 480)
            XCTAssertGreaterThan(keypoint.z, 0)
        }
        for colour in features.colors { XCTAssert(colour.x == colour.y && colour.y == colour.z) }
    }

    func testMaxFeaturesKeepsThatMany() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("blobs.pgm")
        try SyntheticGrayImage.blobs(width: 640, height: 480, count: 700, seed: 2).writePGM(to: url)
        var options = SIFTOptions()
        options.maxFeatures = 100
        XCTAssertEqual(try FeatureSet.extract(imageURL: url, options: options).count, 100)
        options.maxFeatures = 0
        XCTAssertThrowsError(try FeatureSet.extract(imageURL: url, options: options))
    }

    func testKeepRectAndMaskRestrictKeypoints() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("blobs.pgm")
        try SyntheticGrayImage.blobs(width: 640, height: 480, count: 700, seed: 3).writePGM(to: url)
        let rect = CGRect(x: 100, y: 50, width: 300, height: 200)
        let inRect = try FeatureSet.extract(imageURL: url, keepRect: rect)
        XCTAssertGreaterThan(inRect.count, 50)
        for keypoint in inRect.keypoints {
            XCTAssert(rect.contains(CGPoint(x: Double(keypoint.x), y: Double(keypoint.y))), "\(keypoint)")
        }
        // Mask at half resolution (resized by the core): keep the right half only.
        var mask = SyntheticGrayImage(width: 320, height: 240, pixels: [UInt8](repeating: 0, count: 320 * 240))
        for row in 0..<240 { for column in 160..<320 { mask.pixels[row * 320 + column] = 255 } }
        let maskURL = directory.appendingPathComponent("mask.pgm")
        try mask.writePGM(to: maskURL)
        let masked = try FeatureSet.extract(imageURL: url, maskURL: maskURL)
        XCTAssertGreaterThan(masked.count, 100)
        XCTAssert(masked.keypoints.allSatisfy { $0.x >= 320 })
    }

    func testSaveLoadRoundTripIsExact() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("blobs.pgm")
        try SyntheticGrayImage.blobs(width: 480, height: 360, count: 400, seed: 4).writePGM(to: url)
        let features = try FeatureSet.extract(imageURL: url)
        let saved = directory.appendingPathComponent("blobs.features")
        try features.save(to: saved)
        let loaded = try FeatureSet.load(from: saved)
        XCTAssertEqual(loaded.count, features.count)
        XCTAssertEqual(loaded.imageWidth, 480)
        XCTAssertEqual(loaded.keypoints, features.keypoints)
        XCTAssertEqual(loaded.colors, features.colors)
        let selfMatches = try DescriptorMatcher.match(features, loaded)
        XCTAssertEqual(selfMatches.count, features.count)
        XCTAssert(selfMatches.allSatisfy { $0.index1 == $0.index2 })
    }

    func testCorruptImageIsDecodeErrorNamingTheFile() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("broken.jpg")
        var rng = BridgeTestRNG(seed: 5)
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }).write(to: url)
        XCTAssertThrowsError(try FeatureSet.extract(imageURL: url)) { error in
            let error = error as? CVisionError
            XCTAssertEqual(error?.code, .decodeError)
            XCTAssert(error?.message.contains("broken.jpg") ?? false, error?.message ?? "")
        }
        XCTAssertThrowsError(try ImageMetadata.probeSize(of: url)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .decodeError)
        }
        let missing = directory.appendingPathComponent("missing.png")
        XCTAssertThrowsError(try FeatureSet.extract(imageURL: missing)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .ioError)
        }
    }

    func testProbeReadsSizesAndNoEXIFIsNotAnError() throws {
        let directory = try makeBridgeTestDirectory(self)
        let pgm = directory.appendingPathComponent("a.pgm")
        try SyntheticGrayImage.blobs(width: 123, height: 45, count: 10, seed: 6).writePGM(to: pgm)
        let size = try ImageMetadata.probeSize(of: pgm)
        XCTAssertEqual(size.width, 123)
        XCTAssertEqual(size.height, 45)
        XCTAssertEqual(try ImageMetadata.read(from: pgm).orientation, 0)
        // A real PNG (header-only path), written by python's zlib.
        let png = directory.appendingPathComponent("b.png")
        try runBridgeTestPython("""
            import struct, zlib, sys
            w, h = 321, 77
            raw = b''.join(b'\\x00' + bytes((x * 7) % 256 for x in range(w)) for _ in range(h))
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
            open(sys.argv[1], 'wb').write(png)
            """, arguments: [png.path])
        let pngSize = try ImageMetadata.probeSize(of: png)
        XCTAssertEqual(pngSize.width, 321)
        XCTAssertEqual(pngSize.height, 77)
        XCTAssertEqual(try FeatureSet.extract(imageURL: png).imageWidth, 321)
    }
}

