import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `--mask` and masks a capture carries: mask.json forms, folders, one-line errors.
final class MaskSourceTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-mask-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    func testRectangleForms() throws {
        let dir = try temporaryDirectory()
        let nested = dir.appendingPathComponent("a.json")
        try write(#"{"rect": {"x": 27, "y": 0, "width": 577, "height": 480}}"#, to: nested)
        XCTAssertEqual(try MaskSource.load(nested), .rectangle(x: 27, y: 0, width: 577, height: 480))
        let flat = dir.appendingPathComponent("b.json")
        try write(#"{"x": 1.5, "y": 2, "width": 30, "height": 40, "note": "top level"}"#, to: flat)
        XCTAssertEqual(try MaskSource.load(flat).keepRect, CGRect(x: 1.5, y: 2, width: 30, height: 40))
    }

    func testBadMaskFilesSayWhatAndWhere() throws {
        let dir = try temporaryDirectory()
        let cases = [("c.json", "not json", "not a JSON object"),
                     ("d.json", #"{"rect": {"x": 0, "y": 0, "width": "wide"}}"#, "needs numbers"),
                     ("e.json", #"{"rect": {"x": 0, "y": 0, "width": 0, "height": 10}}"#, "empty or negative")]
        for (name, text, expected) in cases {
            let url = dir.appendingPathComponent(name)
            try write(text, to: url)
            XCTAssertThrowsError(try MaskSource.load(url)) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(name) && message.contains(expected), message)
                XCTAssertFalse(message.contains("\n"))
            }
        }
        XCTAssertThrowsError(try MaskSource.load(dir.appendingPathComponent("missing.json")))
    }

    /// Rectangle values are checked where they enter: 2^32 would overflow the core's pixel
    /// arithmetic and mask every image away.
    func testRectangleValuesBeyondAnyImageAreRefusedByName() throws {
        let dir = try temporaryDirectory()
        for (field, rect) in [("width", #"{"x": 0, "y": 0, "width": 4294967296, "height": 480}"#),
                              ("x", #"{"x": 3000000000, "y": 0, "width": 10, "height": 10}"#),
                              ("height", #"{"x": 0, "y": 0, "width": 10, "height": -4294967296}"#)] {
            let url = dir.appendingPathComponent("mask.json")
            try write(#"{"rect": \#(rect)}"#, to: url)
            XCTAssertThrowsError(try MaskSource.load(url), field) { error in
                let value = field == "x" ? "3000000000" : field == "width" ? "4294967296" : "-4294967296"
                XCTAssertEqual("\(error)", "\(url.path): rect.\(field) \(value) is beyond 16777216 px "
                               + "(the rectangle is in image pixels; no image is that large)")
            }
        }
        let url = dir.appendingPathComponent("mask.json")
        try write(#"{"rect": {"x": 0, "y": 0, "width": 16777216, "height": 100000}}"#, to: url)
        XCTAssertEqual(try MaskSource.load(url), .rectangle(x: 0, y: 0, width: 16_777_216, height: 100_000), "reaching past the image is fine")
    }

    /// A rectangle is clipped to each image however far it reaches; one that keeps no pixel of an
    /// image fails that image with a reason naming the rectangle, not the photo.
    func testARectangleIsClippedToEachImageOrRejectsIt() throws {
        let image = Repository.datasets.appendingPathComponent("templeRing-12/images/templeR0013.png")
        let huge = CGRect(x: 300, y: 200, width: 4_294_967_296, height: 4_294_967_296)
        let clipped = try FeatureSet.extract(imageURL: image, maskURL: nil, keepRect: huge, options: SIFTOptions())
        XCTAssertGreaterThan(clipped.count, 50)
        XCTAssertTrue(clipped.keypoints.allSatisfy { $0.x >= 299.5 && $0.y >= 199.5 })
        XCTAssertThrowsError(try FeatureSet.extract(imageURL: image, maskURL: nil, keepRect: CGRect(x: 700, y: 0, width: 10, height: 10),
                                                    options: SIFTOptions())) { error in
            XCTAssertEqual((error as? CVisionError)?.message, "mask rectangle 700,0 10x10 lies outside this image (640x480): it keeps no pixel of it")
        }
    }

    /// In a capture of two sizes, the images a mask.json rectangle misses are rejected with that
    /// reason and the run goes on with the others.
    func testAnImageTheRectangleMissesIsRejectedAndTheRunGoesOn() throws {
        let root = try temporaryDirectory()
        let names = try BadInputs.copyGoodImages(3, to: root)
        try Thumbnail.jpeg(of: BadInputs.goodImages.appendingPathComponent("templeR0016.png"), maxSide: 320, quality: 90)
            .write(to: root.appendingPathComponent("small.jpg"))
        try write(#"{"rect": {"x": 320, "y": 0, "width": 320, "height": 480}}"#, to: root.appendingPathComponent("mask.json"))
        let output = try temporaryDirectory()
        let pipeline = ReconstructionPipeline(input: root, output: output, options: ReconstructionOptions(), progress: nil)
        let summary = try pipeline.runMatching()
        XCTAssertEqual(summary.images, names)
        XCTAssertEqual(pipeline.report.rejectedImages,
                       [RejectedImage(name: "small.jpg", reason: "mask rectangle 320,0 320x480 lies outside this image (320x240): it keeps no pixel of it")])
    }

    func testDiscoveryPrefersMaskFolderAndMatchesStems() throws {
        let root = try temporaryDirectory()
        let images = root.appendingPathComponent("images")
        let masks = root.appendingPathComponent("masks")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: masks, withIntermediateDirectories: true)
        try write(#"{"rect": {"x": 0, "y": 0, "width": 10, "height": 10}}"#, to: root.appendingPathComponent("mask.json"))
        try write("png", to: masks.appendingPathComponent("0001.png"))
        let image = CaptureImage(name: "0001.jpg", url: images.appendingPathComponent("0001.jpg"), width: 640, height: 480,
                                 exif: .empty)
        let other = CaptureImage(name: "0002.jpg", url: images.appendingPathComponent("0002.jpg"), width: 640, height: 480,
                                 exif: .empty)
        let capture = Capture(imageRoot: images, root: root, images: [image, other], rejected: [])
        let source = try XCTUnwrap(try MaskSource.discover(in: capture))
        guard case .directory(let folder) = source else { return XCTFail("expected the masks folder, got \(source)") }
        XCTAssertEqual(folder.path, masks.path)
        XCTAssertEqual(source.maskURL(for: image)?.lastPathComponent, "0001.png")
        XCTAssertNil(source.maskURL(for: other))

        try FileManager.default.removeItem(at: masks)
        XCTAssertEqual(try MaskSource.discover(in: capture), .rectangle(x: 0, y: 0, width: 10, height: 10))
        // Given the images folder itself, nothing outside it is looked at.
        XCTAssertNil(try MaskSource.discover(in: Capture(imageRoot: images, root: images, images: [image], rejected: [])))
        XCTAssertThrowsError(try MaskSource.rectangle(x: 700, y: 0, width: 10, height: 10).validate(against: capture))
    }

    func testMaskRestrictsFeaturesAndWrongShapeIsRefused() throws {
        let image = Repository.datasets.appendingPathComponent("templeRing-12/images/templeR0013.png")
        let all = try FeatureSet.extract(imageURL: image, maskURL: nil, keepRect: nil, options: SIFTOptions())
        let rect = CGRect(x: 200, y: 100, width: 200, height: 200)
        let inside = try FeatureSet.extract(imageURL: image, maskURL: nil, keepRect: rect, options: SIFTOptions())
        XCTAssertGreaterThan(inside.count, 50)
        XCTAssertLessThan(inside.count, all.count)
        XCTAssertTrue(inside.keypoints.allSatisfy { rect.contains(CGPoint(x: Double($0.x), y: Double($0.y))) })

        // A mask of another shape (square for a 4:3 image) belongs to another image.
        let dir = try temporaryDirectory()
        let square = dir.appendingPathComponent("square.png")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import struct, sys, zlib
            w = h = 64
            raw = b''.join(b'\\x00' + b'\\xff' * w for _ in range(h))
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0)) \
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
            open(sys.argv[1], 'wb').write(png)
            """, square.path]
        try python.run()
        python.waitUntilExit()
        XCTAssertThrowsError(try FeatureSet.extract(imageURL: image, maskURL: square, keepRect: nil, options: SIFTOptions())) {
            XCTAssertTrue("\($0)".contains("square.png"), "\($0)")
        }
    }

    /// A malformed mask.json beside the images is an error naming it, as with `--mask`: the run
    /// does not silently go unmasked.
    func testDiscoveredMalformedMaskFileIsAnError() throws {
        let root = try temporaryDirectory()
        let json = root.appendingPathComponent("mask.json")
        try write("{\"rect\": ", to: json)
        let image = CaptureImage(name: "0001.jpg", url: root.appendingPathComponent("0001.jpg"), width: 640, height: 480,
                                 exif: .empty)
        let capture = Capture(imageRoot: root, root: root, images: [image], rejected: [])
        XCTAssertThrowsError(try MaskSource.discover(in: capture)) { error in
            XCTAssertEqual("\(error)", "\(json.path): not a JSON object (want {\"rect\": {\"x\", \"y\", \"width\", \"height\"}}); "
                           + "--mask none ignores it")
        }
        try FileManager.default.removeItem(at: json)
        try BadInputs.makeFIFO(at: json)
        XCTAssertThrowsError(try MaskSource.discover(in: capture)) { error in
            XCTAssertEqual("\(error)", "\(json.path): not a regular file; --mask none ignores it")
        }
    }
}
