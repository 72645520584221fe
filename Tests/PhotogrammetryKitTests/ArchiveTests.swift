import Foundation
import XCTest
@testable import PhotogrammetryKit

final class ArchiveTests: XCTestCase {
    /// Writes a zip at `url` with python's zipfile: (name, contents) entries, plus symlinks.
    private func makeZip(_ url: URL, entries: [(String, String)], symlinks: [(String, String)] = []) throws {
        let files = entries.map { "(\(pythonString($0.0)), \(pythonString($0.1)))" }.joined(separator: ", ")
        let links = symlinks.map { "(\(pythonString($0.0)), \(pythonString($0.1)))" }.joined(separator: ", ")
        try runBridgeTestPython("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for name, data in [\(files)]:
                    z.writestr(name, data)
                for name, target in [\(links)]:
                    info = zipfile.ZipInfo(name)
                    info.create_system = 3
                    info.external_attr = 0o120777 << 16
                    z.writestr(info, target)
            """, arguments: [url.path])
    }

    private func pythonString(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    func testValidZipExtractsAndSkipsMacOSAndDotFiles() throws {
        let directory = try makeBridgeTestDirectory(self)
        let zip = directory.appendingPathComponent("capture.zip")
        try makeZip(zip, entries: [
            ("capture/images/a.jpg", "AAAA"), ("capture/images/b.jpg", "BB"),
            ("capture/masks/a.png", "M"), ("__MACOSX/capture/._a.jpg", "junk"),
            ("capture/.DS_Store", "junk"), ("capture/.hidden/c.jpg", "junk"),
        ])
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        XCTAssertEqual(try ZipArchive.extract(zip, to: destination), 3)
        let a = destination.appendingPathComponent("capture/images/a.jpg")
        XCTAssertEqual(try String(contentsOf: a, encoding: .utf8), "AAAA")
        let fm = FileManager.default
        XCTAssert(fm.fileExists(atPath: destination.appendingPathComponent("capture/masks/a.png").path))
        XCTAssertFalse(fm.fileExists(atPath: destination.appendingPathComponent("__MACOSX").path))
        XCTAssertFalse(fm.fileExists(atPath: destination.appendingPathComponent("capture/.DS_Store").path))
        XCTAssertFalse(fm.fileExists(atPath: destination.appendingPathComponent("capture/.hidden").path))
    }

    func testTraversalAbsoluteAndLinkEntriesAreRefused() throws {
        let directory = try makeBridgeTestDirectory(self)
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let hostile: [(String, [(String, String)], [(String, String)])] = [
            ("../evil", [("ok.jpg", "x"), ("../evil", "pwned")], []),
            ("a/../../evil2", [("a/../../evil2", "pwned")], []),
            ("/tmp/evil3", [("/tmp/evil3", "pwned")], []),
            ("link", [], [("link", "/etc/passwd")]),
        ]
        for (index, (entry, files, links)) in hostile.enumerated() {
            let zip = directory.appendingPathComponent("hostile\(index).zip")
            try makeZip(zip, entries: files, symlinks: links)
            XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination)) { error in
                let error = error as? CVisionError
                XCTAssertEqual(error?.code, .unsafeArchive, "\(entry)")
                XCTAssert(error?.message.contains(entry) ?? false, error?.message ?? "")
            }
        }
        // Refused before anything is written, and nothing escaped.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("evil").path))
    }

    func testSizeAndEntryCapsAreEnforced() throws {
        let directory = try makeBridgeTestDirectory(self)
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        let zip = directory.appendingPathComponent("big.zip")
        try makeZip(zip, entries: [("small.txt", "tiny"), ("big.txt", String(repeating: "z", count: 5000))])
        var limits = UnzipLimits()
        limits.maxEntryBytes = 1000
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination, limits: limits)) { error in
            let error = error as? CVisionError
            XCTAssertEqual(error?.code, .limitExceeded)
            XCTAssert(error?.message.contains("big.txt") ?? false, error?.message ?? "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.appendingPathComponent("big.txt").path))
        limits = UnzipLimits()
        limits.maxTotalBytes = 4000
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination, limits: limits)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .limitExceeded)
        }
        limits = UnzipLimits()
        limits.maxEntries = 1
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination, limits: limits)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .limitExceeded)
        }
        XCTAssertEqual(try ZipArchive.extract(zip, to: destination), 2)
    }

    func testNotAZipIsDecodeError() throws {
        let directory = try makeBridgeTestDirectory(self)
        let bogus = directory.appendingPathComponent("bogus.zip")
        try Data("this is not a zip file at all".utf8).write(to: bogus)
        XCTAssertThrowsError(try ZipArchive.extract(bogus, to: directory)) { error in
            let error = error as? CVisionError
            XCTAssertEqual(error?.code, .decodeError)
            XCTAssert(error?.message.contains("bogus.zip") ?? false, error?.message ?? "")
        }
    }
}
