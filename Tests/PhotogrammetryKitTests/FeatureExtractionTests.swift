import Foundation
import XCTest
@testable import PhotogrammetryKit

/// A deterministic generator (SplitMix64), so synthetic scenes are identical on every run.
struct BridgeTestRNG: RandomNumberGenerator {
    var base: SeededGenerator
    init(seed: UInt64) { base = SeededGenerator(seed: seed) }
    mutating func next() -> UInt64 { base.next() }
    /// A standard normal sample (Box-Muller).
    mutating func gaussian() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// An 8-bit grey image that tests write as binary PGM (which OpenCV decodes).
struct SyntheticGrayImage {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// Random Gaussian blobs on grey: blob-rich texture on which SIFT finds many stable features.
    static func blobs(width: Int, height: Int, count: Int, seed: UInt64) -> SyntheticGrayImage {
        var rng = BridgeTestRNG(seed: seed)
        var field = [Double](repeating: 128, count: width * height)
        for _ in 0..<count {
            let cx = Double.random(in: 0..<Double(width), using: &rng)
            let cy = Double.random(in: 0..<Double(height), using: &rng)
            let sigma = Double.random(in: 2...9, using: &rng)
            let amplitude = Double.random(in: 40...110, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
            let radius = Int(3 * sigma)
            for y in max(0, Int(cy) - radius)...min(height - 1, Int(cy) + radius) {
                for x in max(0, Int(cx) - radius)...min(width - 1, Int(cx) + radius) {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    field[y * width + x] += amplitude * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                }
            }
        }
        return SyntheticGrayImage(width: width, height: height,
                         pixels: field.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// The window whose top-left pixel is (x, y).
    func cropped(x: Int, y: Int, width: Int, height: Int) -> SyntheticGrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { out[row * width + column] = pixels[(row + y) * self.width + column + x] }
        }
        return SyntheticGrayImage(width: width, height: height, pixels: out)
    }

    /// Rotated 90 degrees clockwise: a point (x, y) moves to (height - y, x) in pixel coordinates
    /// whose top-left pixel centre is (0.5, 0.5).
    func rotatedClockwise() -> SyntheticGrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { out[column * height + (height - 1 - row)] = pixels[row * width + column] }
        }
        return SyntheticGrayImage(width: height, height: width, pixels: out)
    }

    func writePGM(to url: URL) throws {
        var data = Data("P5\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: pixels)
        try data.write(to: url)
    }
}

/// A fresh temporary directory, removed when the test ends.
func makeBridgeTestDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("pgkit-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

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

/// Runs a python3 script (always available on the build machines) with arguments.
func runBridgeTestPython(_ script: String, arguments: [String] = []) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script] + arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CVisionError(code: .internalError, message: "python3 failed: \(process.terminationStatus)")
    }
}
