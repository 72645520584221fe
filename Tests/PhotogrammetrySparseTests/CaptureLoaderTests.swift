import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Ingest of what a new user's capture folder or zip can hold: every file that cannot be used is
/// named with the reason, nothing hangs, and a zip that is refused leaves nothing behind.
final class CaptureLoaderTests: XCTestCase {
    private func reasons(_ capture: Capture) -> [String: String] {
        Dictionary(uniqueKeysWithValues: capture.rejected.map { ($0.name, $0.reason) })
    }

    func testEveryUnusableFileIsRejectedWithItsReason() throws {
        let folder = try makeBridgeTestDirectory(self)
        let good = try BadInputs.copyGoodImages(2, to: folder)
        try Data().write(to: folder.appendingPathComponent("empty.jpg"))
        try BadInputs.writeTinyImage(to: folder.appendingPathComponent("tiny.png"))
        try BadInputs.writeTruncatedJPEG(to: folder.appendingPathComponent("cut.jpg"))
        let png = try Data(contentsOf: folder.appendingPathComponent(good[0]))
        try png.prefix(png.count - 100).write(to: folder.appendingPathComponent("cut.png"))
        // A complete JPEG with bytes after its end marker (padding, a phone's appended video) is fine.
        try (BadInputs.jpeg() + Data(repeating: 0, count: 64) + Data("ftypmp42".utf8)).write(to: folder.appendingPathComponent("trailer.jpg"))
        try BadInputs.makeFIFO(at: folder.appendingPathComponent("pipe.jpg"))
        try Data("x".utf8).write(to: folder.appendingPathComponent("line\nbreak.png"))
        try BadInputs.writeZip(folder.appendingPathComponent("more.zip"), files: [])

        let capture = try CaptureLoader.load(input: folder, workspace: try makeBridgeTestDirectory(self))
        XCTAssertEqual(capture.images.map(\.name), good + ["trailer.jpg"])
        let reasons = reasons(capture)
        XCTAssertEqual(reasons["empty.jpg"], "empty file (0 bytes)")
        XCTAssertEqual(reasons["tiny.png"], "too small (1x1 px, need at least 64 px on each side)")
        XCTAssertEqual(reasons["pipe.jpg"], "not a regular file (a named pipe)")
        XCTAssertTrue(reasons["cut.jpg"]?.hasPrefix("truncated JPEG: the file ends after ") == true, "\(reasons)")
        XCTAssertTrue(reasons["cut.png"]?.hasPrefix("truncated PNG") == true, "\(reasons)")
        XCTAssertEqual(reasons["line\nbreak.png"],
                       "name holds a line break or other control character (line\\nbreak.png), which a COLMAP text model cannot hold")
        XCTAssertEqual(reasons["more.zip"], "zip inside the capture folder is not unpacked (unpack it beside the images)")
        XCTAssertEqual(capture.imagesTotal, 10)
    }

    func testZipInsideAZipIsNamedAndAFileNameWithALineBreakIsRefused() throws {
        let work = try makeBridgeTestDirectory(self)
        let inner = work.appendingPathComponent("inner.zip")
        try BadInputs.writeZip(inner, files: [("a.png", BadInputs.goodImages.appendingPathComponent("templeR0013.png"))])
        let zip = work.appendingPathComponent("capture.zip")
        let image = BadInputs.goodImages.appendingPathComponent("templeR0014.png")
        try BadInputs.writeZip(zip, files: [("capture/images/ok.png", image), ("capture/images/bad\nname.png", image),
                                            ("capture/images/inner.zip", inner)])
        let capture = try CaptureLoader.load(input: zip, workspace: work.appendingPathComponent("out"))
        XCTAssertEqual(capture.images.map(\.name), ["ok.png"])
        XCTAssertEqual(reasons(capture)["inner.zip"], "zip inside a zip is not unpacked (unpack it into the outer zip's folder)")
        XCTAssertTrue(reasons(capture)["bad\nname.png"]?.contains("line break") == true)
    }

    func testARefusedZipLeavesNothingUnpacked() throws {
        let work = try makeBridgeTestDirectory(self)
        let zip = work.appendingPathComponent("bomb.zip")
        // 64 MiB of zeros deflate to 64 KiB: a ratio of 1000.
        try BadInputs.writeZip(zip, files: [("ok.png", BadInputs.goodImages.appendingPathComponent("templeR0013.png"))],
                               data: [("zeros.png", Data(count: 64 << 20))])
        let workspace = work.appendingPathComponent("out")
        XCTAssertThrowsError(try CaptureLoader.load(input: zip, workspace: workspace)) { error in
            XCTAssertTrue("\(error)".hasPrefix("bomb.zip: entry \"zeros.png\" would inflate "), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("input").path))
    }

    func testInputThatIsNeitherFolderNorZipFile() throws {
        let work = try makeBridgeTestDirectory(self)
        let pipe = work.appendingPathComponent("capture.zip")
        try BadInputs.makeFIFO(at: pipe)
        XCTAssertThrowsError(try CaptureLoader.load(input: pipe, workspace: work)) { error in
            XCTAssertEqual("\(error)", "\(pipe.path): input must be a folder, a .zip file or a video")
        }
        XCTAssertThrowsError(try CaptureLoader.load(input: work.appendingPathComponent("missing"), workspace: work)) { error in
            XCTAssertTrue("\(error)".hasSuffix("missing: no such file or folder"), "\(error)")
        }
    }
}
