import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A zip capture unpacks only what a capture holds, within a total its disk and images can take,
/// and its unpacked copy goes when the run is done (a rerun unpacks it again and resumes).
final class ZipLimitTests: XCTestCase {
    override func tearDown() {
        XCTAssertNoThrow(try DecodeLimits().apply())
        super.tearDown()
    }

    /// Writes `count` entries of `bytes` each that deflate about 80:1 (40 random bytes in every
    /// 4 KiB, the rest zeros): under the per-entry ratio cap of 200, as a disk image or a log is.
    private func compressible(_ folder: URL, count: Int, bytes: Int) throws -> [(String, URL)] {
        try (0..<count).map { k in
            let url = folder.appendingPathComponent("junk-\(k).bin")
            try runBridgeTestPython("""
                import os, sys
                with open(sys.argv[1], 'wb') as f:
                    for _ in range(int(sys.argv[2]) // 4096):
                        f.write(os.urandom(40) + bytes(4056))
                """, arguments: [url.path, "\(bytes)"])
            return ("capture/junk/junk-\(k).bin", url)
        }
    }

    private func good(_ names: [String], under folder: String) -> [(String, URL)] {
        names.map { ("\(folder)/\($0)", BadInputs.goodImages.appendingPathComponent($0)) }
    }

    func testOnlyWhatACaptureHoldsIsUnpacked() throws {
        let work = try makeBridgeTestDirectory(self)
        let images = ["templeR0013.png", "templeR0014.png", "templeR0015.png"]
        let clip = VideoInputTests.templeVideo
        let inner = work.appendingPathComponent("inner.zip")
        try BadInputs.writeZip(inner, files: [("a.png", BadInputs.goodImages.appendingPathComponent("templeR0016.png"))])
        var files = good(images, under: "capture/images") + good(["templeR0013.png"], under: "capture/masks")
            + good(["templeR0013.png"], under: "capture/depth") + [("capture/images/clip.mp4", clip), ("capture/images/inner.zip", inner)]
        files += try compressible(work, count: 8, bytes: 16 << 20)
        let zip = work.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: files, data: [("capture/transforms.json", Data("{}".utf8)),
                                                         ("capture/NOTES.txt", Data("taken on a cloudy day".utf8)),
                                                         ("capture/images/raw.dng", Data(count: 1 << 20))])
        let workspace = work.appendingPathComponent("out")
        let capture = try CaptureLoader.load(input: zip, workspace: workspace)
        XCTAssertEqual(capture.images.map(\.name), images)
        let root = OutputLayout.unpackedInput(in: workspace).appendingPathComponent("capture")
        let fm = FileManager.default
        for kept in ["images/templeR0013.png", "masks/templeR0013.png", "depth/templeR0013.png", "transforms.json"] {
            XCTAssertTrue(fm.fileExists(atPath: root.appendingPathComponent(kept).path), kept)
        }
        for left in ["junk/junk-0.bin", "NOTES.txt", "images/raw.dng", "images/clip.mp4", "images/inner.zip"] {
            XCTAssertFalse(fm.fileExists(atPath: root.appendingPathComponent(left).path), left)
        }
        // Named as in a folder, though never unpacked.
        let reasons = Dictionary(uniqueKeysWithValues: capture.rejected.map { ($0.name, $0.reason) })
        XCTAssertEqual(reasons, ["clip.mp4": "a video beside photos is not used (give the video alone, or a folder of videos only)",
                                 "inner.zip": "zip inside a zip is not unpacked (unpack it into the outer zip's folder)"])
    }

    /// What a zip may unpack: what its images can need, or the free space less a margin, whichever is less.
    func testTheCapRule() {
        var plan = CaptureArchive.Plan()
        plan.files = 10
        let gib: UInt64 = 1 << 30
        let content = CaptureArchive.cap(freeBytes: 100 * gib, plan: plan, maxPixels: 120_000_000, entryCap: gib)
        XCTAssertEqual(content.bytes, 10 * 960_000_000)
        XCTAssertEqual(content.reason, "10 images at 8 bytes per pixel of the 120 MP limit (--max-megapixels)")
        let disk = CaptureArchive.cap(freeBytes: 5 * gib, plan: plan, maxPixels: 120_000_000, entryCap: gib)
        XCTAssertEqual(disk.bytes, 4 * gib, "a margin of 1 GiB")
        XCTAssertEqual(disk.reason, "the free space at the destination, 5.00 GiB, less a margin of 1.00 GiB")
        var many = plan
        many.files = 100
        XCTAssertEqual(CaptureArchive.cap(freeBytes: 50 * gib, plan: many, maxPixels: 120_000_000, entryCap: gib).bytes, 45 * gib,
                       "a margin of a tenth on a large disk")
        plan.videos = 2
        XCTAssertEqual(CaptureArchive.cap(freeBytes: 100 * gib, plan: plan, maxPixels: 1_000_000, entryCap: gib).bytes,
                       10 * 8_000_000 + 2 * gib, "a video may be as large as the per-entry cap")
    }

    func testMoreThanTheCapIsRefusedInOneLine() throws {
        let work = try makeBridgeTestDirectory(self)
        // Two 20 MiB "PNGs" of noise beside three photos: 5 files, at 1 MP allowed 8 MB each.
        let noise = try (0..<2).map { k -> (String, URL) in
            let url = work.appendingPathComponent("noise-\(k).png")
            try runBridgeTestPython("import os, sys; open(sys.argv[1], 'wb').write(os.urandom(20 << 20))", arguments: [url.path])
            return ("capture/noise-\(k).png", url)
        }
        let zip = work.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: good(["templeR0013.png", "templeR0014.png", "templeR0015.png"], under: "capture") + noise)
        let output = work.appendingPathComponent("out")
        let outcome = try BuiltProgram.run(["reconstruct", zip.path, output.path, "--max-megapixels", "1"],
                                           logs: try makeBridgeTestDirectory(self))
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
        let line = try XCTUnwrap(outcome.errorLines.first)
        XCTAssertTrue(line.hasPrefix("photogrammetry: error: capture.zip: would unpack 40."), line)
        XCTAssertTrue(line.hasSuffix(" MiB in 5 files, above the cap of 38.1 MiB (5 images at 8 bytes per pixel of the 1 MP "
                                     + "limit (--max-megapixels))"), line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("work/input").path), "nothing unpacked stays")
    }

    /// The unpacked copy goes at the end of a successful run; a rerun unpacks the same bytes
    /// again and resumes from the checkpoints, and goes too.
    func testAZipCaptureLeavesNoCopyAndResumes() throws {
        let work = try makeBridgeTestDirectory(self)
        let zip = work.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: good(["templeR0013.png", "templeR0014.png", "templeR0015.png", "templeR0016.png"],
                                                under: "capture/images"))
        let output = work.appendingPathComponent("out")
        let logs = try makeBridgeTestDirectory(self)
        let arguments = ["reconstruct", zip.path, output.path, "--sparse-only", "--progress", "json"]
        let first = try BuiltProgram.run(arguments, logs: logs)
        XCTAssertEqual(first.status, 0, first.standardError)
        let input = output.appendingPathComponent("work/input")
        XCTAssertFalse(FileManager.default.fileExists(atPath: input.path), "the unpacked copy is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("sparse/images.txt").path))
        let second = try BuiltProgram.run(arguments, logs: logs)
        XCTAssertEqual(second.status, 0, second.standardError)
        let resumed = second.outputLines.compactMap { line -> String? in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  event["code"] as? Int == PipelineEvent.stageResumed.code else { return nil }
            return event["subject"] as? String
        }
        XCTAssertEqual(Set(resumed).intersection(["features", "matching", "sparse"]), ["features", "matching", "sparse"],
                       "keyed by content: \(resumed)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: input.path))
    }
}
