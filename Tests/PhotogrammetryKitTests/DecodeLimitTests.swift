import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Limits before work: an image is sized from its header and refused above the decode limit
/// before a pixel of it is decoded, on every path that decodes one; the decoders' own messages go
/// into the file's reason, never raw to standard error.
final class DecodeLimitTests: XCTestCase {
    override func tearDown() {
        // The limit is the process's: the next test starts from the default.
        XCTAssertNoThrow(try DecodeLimits().apply())
        super.tearDown()
    }

    /// A capture folder of `good` bundled images, in a fresh temporary folder.
    private func captureFolder(good: Int) throws -> URL {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(good, to: folder)
        return folder
    }

    private func rejectedReasons(_ output: URL) throws -> [String: String] {
        let report = output.appendingPathComponent("report.json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let rejected = try XCTUnwrap(json["rejected_images"] as? [[String: String]])
        return Dictionary(uniqueKeysWithValues: rejected.map { ($0["name"] ?? "", $0["reason"] ?? "") })
    }

    /// The messages of the JSON progress events on standard output.
    private func eventMessages(_ outcome: BuiltProgram.Outcome) -> [String] {
        outcome.outputLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["message"] as? String
        }
    }

    /// Runs `reconstruct --sparse-only` on five good images and `bomb`, measuring the child's
    /// peak memory; checks the bomb is named with its size, the others make the model, and
    /// nothing but the run's own lines reached standard error.
    private func assertRefusedUnread(_ bomb: String, write: (URL) throws -> Void,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let input = try captureFolder(good: 5)
        try write(input.appendingPathComponent(bomb))
        let output = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        let (outcome, peak) = try BuiltProgram.runMeasuringMemory(
            ["reconstruct", input.path, output.path, "--sparse-only", "--progress", "json"], logs: try makeBridgeTestDirectory(self))
        XCTAssertEqual(outcome.status, 0, outcome.standardError, file: file, line: line)
        let reason = "declares 30000×30000 = 900 MP, above the 120 MP limit (--max-megapixels)"
        XCTAssertTrue(eventMessages(outcome).contains("rejected \(bomb): \(reason)"), outcome.standardOutput, file: file, line: line)
        XCTAssertEqual(try rejectedReasons(output), [bomb: reason], file: file, line: line)
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(model.images.count, 5, "the good images still make the model", file: file, line: line)
        XCTAssertEqual(outcome.standardError, "", "no decoder's warning on standard error", file: file, line: line)
        // A full decode is 2.7 GB of pixels; five 640 x 480 views need about 0.3 GB.
        XCTAssertLessThan(peak, 1_500_000_000, "peak memory \(peak / 1_000_000) MB", file: file, line: line)
    }

    func testAJPEGWhoseHeaderClaims900MPIsRefusedUnread() throws {
        try assertRefusedUnread("big.jpg") { try BadInputs.writeHeaderBombJPEG(to: $0) }
    }

    func testAReal900MPPNGIsRefusedUnread() throws {
        try assertRefusedUnread("huge.png") { try BadInputs.writeHugePNG(to: $0) }
    }

    /// Every decode path of the core holds the limit: photos (features, thumbnails, texturing's
    /// and undistortion's reads), masks, depth PNGs, HEIF images and their depth images, images
    /// inside model files, video frames. The probe itself only reads the header.
    func testEveryDecodePathHoldsTheLimit() throws {
        let folder = try makeBridgeTestDirectory(self)
        let photo = BadInputs.goodImages.appendingPathComponent("templeR0013.png")  // 640 x 480, 0.31 MP
        var limits = DecodeLimits()
        limits.maxMegapixels = 0.1
        try limits.apply()
        XCTAssertEqual(DecodeLimits.current, limits)
        let expected = "templeR0013.png: declares 640×480 = 0.31 MP, above the 0.1 MP limit (--max-megapixels)"
        func assertRefused(_ what: String, _ message: String = expected, _ body: () throws -> Void) {
            XCTAssertThrowsError(try body(), what) { error in
                XCTAssertEqual((error as? CVisionError)?.code, .limitExceeded, "\(what): \(error)")
                XCTAssertEqual((error as? CVisionError)?.message, message, what)
            }
        }
        XCTAssertEqual(try ImageMetadata.probeSize(of: photo).width, 640, "the probe reads the header, whatever its size")
        assertRefused("check") { try DecodeLimits.checkDecodable(photo) }
        assertRefused("features") { _ = try FeatureSet.extract(imageURL: photo) }
        assertRefused("thumbnail") { _ = try Thumbnail.jpeg(of: photo) }
        assertRefused("pixels") { _ = try PixelImage(contentsOf: photo) }
        assertRefused("embedded", "embedded image: declares 640×480 = 0.31 MP, above the 0.1 MP limit (--max-megapixels)") {
            _ = try PixelImage(decoding: Data(contentsOf: photo))
        }

        // A mask larger than the limit, for an image within it.
        let small = folder.appendingPathComponent("small.png"), mask = folder.appendingPathComponent("mask.png")
        try TestPNG.writeGrey([UInt8](repeating: 200, count: 320 * 240), width: 320, height: 240, to: small)
        try TestPNG.writeGrey([UInt8](repeating: 255, count: 640 * 480), width: 640, height: 480, to: mask)
        assertRefused("mask", "mask.png: declares 640×480 = 0.31 MP, above the 0.1 MP limit (--max-megapixels)") {
            _ = try FeatureSet.extract(imageURL: small, maskURL: mask)
        }
        let depth = folder.appendingPathComponent("depth.png")
        try FileManager.default.copyItem(at: mask, to: depth)
        assertRefused("depth", "depth.png: declares 640×480 = 0.31 MP, above the 0.1 MP limit (--max-megapixels)") {
            _ = try DepthPNG.read(from: depth)
        }
        let grid = Repository.datasets.appendingPathComponent("heic/grid.heic")  // 500 x 400
        assertRefused("HEIF", "grid.heic: declares 500×400 = 0.2 MP, above the 0.1 MP limit (--max-megapixels)") {
            _ = try PixelImage(contentsOf: grid)
        }
        assertRefused("video", "templeRing-12.mp4: declares 640×480 = 0.31 MP, above the 0.1 MP limit (--max-megapixels)") {
            _ = try VideoFile.probe(VideoInputTests.templeVideo)
        }
        // The HEIF depth image is sized on its own (a quarter of the photo per side).
        limits.maxPixels = 1000
        try limits.apply()
        XCTAssertThrowsError(try HEICDepthImage.read(from: Repository.datasets.appendingPathComponent("heic/depth.heic"))) {
            XCTAssertEqual(($0 as? CVisionError)?.code, .limitExceeded, "\($0)")
        }

        // Within the limit, everything decodes as before.
        try DecodeLimits().apply()
        XCTAssertEqual(try PixelImage(contentsOf: photo).width, 640)
        XCTAssertEqual(try DepthPNG.read(from: depth).width, 640)
        XCTAssertNoThrow(try FeatureSet.extract(imageURL: small, maskURL: mask))
    }

    /// Formats the core cannot size from a header are not decoded at all (a TIFF could claim any
    /// size); PGM, which can be, is sized from its header alone.
    func testFormatsWithoutAHeaderProbeAreNotDecoded() throws {
        let folder = try makeBridgeTestDirectory(self)
        // An 8 x 8 grey TIFF, uncompressed: OpenCV would decode it.
        let tiff = folder.appendingPathComponent("grey.tif")
        try runBridgeTestPython("""
            import struct, sys
            w = h = 8
            entries = [(256, 3, 1, w), (257, 3, 1, h), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
                       (273, 4, 1, 8 + 2 + 12 * 8 + 4), (277, 3, 1, 1), (278, 3, 1, h), (279, 4, 1, w * h)]
            ifd = struct.pack('<H', len(entries)) + b''.join(struct.pack('<HHII', *e) for e in entries) + struct.pack('<I', 0)
            open(sys.argv[1], 'wb').write(b'II*\\x00' + struct.pack('<I', 8) + ifd + bytes(range(64)))
            """, arguments: [tiff.path])
        let refusal = "grey.tif: not a decodable image (not JPEG, PNG, HEIC or PGM, the only formats whose size is checked before decoding)"
        for (what, body) in [("probe", { _ = try ImageMetadata.probeSize(of: tiff) }), ("pixels", { _ = try PixelImage(contentsOf: tiff) }),
                             ("thumbnail", { _ = try Thumbnail.jpeg(of: tiff) })] as [(String, () throws -> Void)] {
            XCTAssertThrowsError(try body(), what) { XCTAssertEqual(($0 as? CVisionError)?.message, refusal, what) }
        }
        // A PGM whose header claims 30000 x 30000 over a few bytes: sized, and refused, unread.
        let pgm = folder.appendingPathComponent("claims.pgm")
        try (Data("P5\n# a comment\n30000 30000\n255\n".utf8) + Data(count: 64)).write(to: pgm)
        XCTAssertEqual(try ImageMetadata.probeSize(of: pgm).width, 30000)
        XCTAssertThrowsError(try DecodeLimits.checkDecodable(pgm)) {
            XCTAssertEqual(($0 as? CVisionError)?.message,
                           "claims.pgm: declares 30000×30000 = 900 MP, above the 120 MP limit (--max-megapixels)")
        }
    }

    /// libjpeg's and libpng's complaints are the file's reason in the report (a JPEG whose data
    /// stop early is refused rather than used with a grey half), not lines on standard error.
    func testDecoderMessagesBecomeTheFilesReason() throws {
        let input = try captureFolder(good: 3)
        try BadInputs.writeDamagedJPEG(to: input.appendingPathComponent("damaged.jpg"))
        try BadInputs.writeCRCErrorPNG(to: input.appendingPathComponent("flipped.png"))
        let output = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        let outcome = try BuiltProgram.run(["reconstruct", input.path, output.path, "--sparse-only", "--progress", "none"],
                                           logs: try makeBridgeTestDirectory(self))
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(outcome.standardError, "", "libjpeg and libpng print nothing of their own")
        let reasons = try rejectedReasons(output)
        XCTAssertEqual(reasons["damaged.jpg"],
                       "damaged.jpg: damaged JPEG data (libjpeg: Corrupt JPEG data: premature end of data segment)")
        XCTAssertEqual(reasons["flipped.png"], "flipped.png: not a decodable PNG (libpng: IDAT: CRC error)")
    }

    /// `--max-megapixels` sets the limit for reconstruct, diagnose, match, batch and texture, and
    /// is refused in one line when it is no number of megapixels.
    func testMaxMegapixelsSetsTheLimit() throws {
        let input = try captureFolder(good: 3)
        let work = try makeBridgeTestDirectory(self)
        let logs = try makeBridgeTestDirectory(self)
        let reason = "declares 640×480 = 0.31 MP, above the 0.3 MP limit (--max-megapixels)"
        for command in ["reconstruct", "match", "diagnose"] {
            let output = work.appendingPathComponent(command)
            let arguments = command == "diagnose" ? [command, input.path, "--output", output.path] : [command, input.path, output.path]
            let outcome = try BuiltProgram.run(arguments + ["--max-megapixels", "0.3", "--progress", "none"], logs: logs)
            XCTAssertEqual(outcome.status, 1, "\(command): \(outcome.standardError)")
            XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
            XCTAssertEqual(try rejectedReasons(output), Dictionary(uniqueKeysWithValues: (13...15).map { ("templeR00\($0).png", reason) }),
                           command)
        }
        let plan = try BuiltProgram.run(["batch", input.deletingLastPathComponent().path, work.appendingPathComponent("batch").path,
                                         "--dry-run", "--max-megapixels", "0.3"], logs: logs)
        XCTAssertEqual(plan.status, 0, plan.standardError)
        let want = "photogrammetry: error: --max-megapixels wants a number of megapixels above 0 and at most 1000"
        for value in ["0", "-5", "many", "1001", "nan"] {
            let outcome = try BuiltProgram.run(["reconstruct", input.path, work.appendingPathComponent("x").path, "--max-megapixels", value],
                                               logs: logs)
            XCTAssertEqual(outcome.status, 2, value)
            XCTAssertEqual(outcome.errorLines, [want], value)
        }
        let texture = try BuiltProgram.run(["texture", "mesh.obj", input.path, work.appendingPathComponent("t").path,
                                            "--max-megapixels", "many"], logs: logs)
        XCTAssertEqual(texture.errorLines, [want])
    }

    /// The limit is an option of ingest, which it decides what to admit: it changes ingest's key,
    /// so every key after it and the options' fingerprint (a batch reruns its captures, resuming
    /// what the images it admits allow); the later stages' own options do not hold it.
    func testTheLimitIsAnIngestOption() {
        let base = ReconstructionOptions()
        var larger = base
        larger.decodeLimits.maxMegapixels = 200
        XCTAssertTrue(base.ingestStage.keyText.hasSuffix(" max_megapixels=120"), base.ingestStage.keyText)
        XCTAssertTrue(larger.ingestStage.keyText.hasSuffix(" max_megapixels=200"), larger.ingestStage.keyText)
        XCTAssertNotEqual(base.fingerprint, larger.fingerprint)
        XCTAssertNotEqual(IngestStage(options: base.ingestStage).key(after: "x"), IngestStage(options: larger.ingestStage).key(after: "x"))
        XCTAssertEqual(base.featureStage.keyText, larger.featureStage.keyText)
        XCTAssertEqual(base.matchingStage.keyText, larger.matchingStage.keyText)
        var invalid = base
        invalid.decodeLimits.maxPixels = 0
        XCTAssertThrowsError(try invalid.validate())
    }
}
