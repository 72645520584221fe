import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// What a batch is made of: a folder's subfolders and zips, or a list's lines, sorted, each with
/// an output folder name of its own.
final class BatchCaptureTests: XCTestCase {
    private func folder(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func testAFolderIsItsSubfoldersAndZipsSorted() throws {
        let root = try makeBridgeTestDirectory(self).appendingPathComponent("captures")
        for name in ["b-walk", "a-orbit", ".hidden", "templeRing"] { try folder(root.appendingPathComponent(name)) }
        for name in ["templeRing.zip", "notes.txt", ".DS_Store", "c.ZIP"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(name))
        }
        let captures = try BatchCapture.discover(root)
        XCTAssertEqual(captures.map(\.name), ["a-orbit", "b-walk", "c-zip", "templeRing", "templeRing-zip"])
        XCTAssertEqual(captures.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertEqual(captures.map(\.input.lastPathComponent), ["a-orbit", "b-walk", "c.ZIP", "templeRing", "templeRing.zip"])
        // OUT_ROOT inside the folder is not a capture; the folder itself cannot be OUT_ROOT.
        XCTAssertEqual(try BatchCapture.discover(root, outRoot: root.appendingPathComponent("b-walk")).map(\.name),
                       ["a-orbit", "c-zip", "templeRing", "templeRing-zip"])
        XCTAssertThrowsError(try BatchCapture.discover(root, outRoot: root.appendingPathComponent("./"))) {
            XCTAssertEqual("\($0)", "\(root.path): OUT_ROOT is the folder of captures; its output folders would be taken "
                           + "for captures: name another folder")
        }
    }

    func testAListSkipsBlanksAndCommentsAndReadsPathsFromItsFolder() throws {
        let work = try makeBridgeTestDirectory(self)
        let lists = work.appendingPathComponent("lists")
        try folder(lists)
        let list = lists.appendingPathComponent("batch.txt")
        try """
            # captures of the week

              ../data/x/templeRing\t
            ../data/y/templeRing
            \(work.appendingPathComponent("data/z.zip").path)
            # ../data/commented
            ../data/x/templeRing
            ../data/we ird#name

            """.write(to: list, atomically: true, encoding: .utf8)
        let captures = try BatchCapture.discover(list)
        let data = work.appendingPathComponent("data").standardizedFileURL.path
        XCTAssertEqual(captures.map(\.input.path), ["\(data)/we ird#name", "\(data)/x/templeRing", "\(data)/y/templeRing",
                                                    "\(data)/z.zip"], "sorted, listed twice counts once")
        XCTAssertEqual(captures[0].name, "we_ird_name")
        XCTAssertEqual(captures[3].name, "z-zip")
        // The same base name in two folders: both get a hash of their path, the same every run.
        XCTAssertNotEqual(captures[1].name, captures[2].name)
        XCTAssertTrue(captures[1].name.hasPrefix("templeRing-") && captures[1].name.count == "templeRing-".count + 8, captures[1].name)
        XCTAssertEqual(try BatchCapture.discover(list).map(\.name), captures.map(\.name))
    }

    func testNamesCollidingOnlyInCaseOrAfterSanitizingAreMadeUnique() {
        let names = BatchCapture.names(for: ["/a/Temple", "/b/temple", "/c/a b", "/d/a_b", "/e/.x", "/f/é"].map { URL(fileURLWithPath: $0) })
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count, "\(names)")
        XCTAssertEqual(names[4], "_x")
        XCTAssertEqual(names[5], "_")
        // An OUTPUT ending in a model file's extension would name a file, not a folder.
        XCTAssertEqual(BatchCapture.names(for: [URL(fileURLWithPath: "/a/scan.ply"), URL(fileURLWithPath: "/a/chair.USDZ")]),
                       ["scan-ply", "chair-usdz"])
    }

    func testWhatIsNoBatchIsOneLine() throws {
        let work = try makeBridgeTestDirectory(self)
        XCTAssertThrowsError(try BatchCapture.discover(work.appendingPathComponent("none"))) {
            XCTAssertEqual("\($0)", "\(work.path)/none: no such file or folder")
        }
        let empty = work.appendingPathComponent("empty")
        try folder(empty)
        try Data("x".utf8).write(to: empty.appendingPathComponent("image.png"))
        XCTAssertThrowsError(try BatchCapture.discover(empty)) {
            XCTAssertEqual("\($0)", "\(empty.path): no captures in this folder (subfolders or .zip files; for one capture, use reconstruct)")
        }
        let zip = work.appendingPathComponent("one.zip")
        try Data("x".utf8).write(to: zip)
        XCTAssertThrowsError(try BatchCapture.discover(zip)) {
            XCTAssertEqual("\($0)", "\(zip.path): a zip is one capture, not a list (use reconstruct, or a folder of zips)")
        }
        let comments = work.appendingPathComponent("list.txt")
        try "# nothing\n\n".write(to: comments, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try BatchCapture.discover(comments)) {
            XCTAssertEqual("\($0)", "\(comments.path): the list names no capture")
        }
    }
}
