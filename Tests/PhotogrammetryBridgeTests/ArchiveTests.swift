import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

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

    // MARK: Zip bombs

    /// Writes a zip of a small good entry, then `zeros` bytes of zeros (deflated about 1000:1),
    /// then lets `patch` edit the bytes (headers that lie).
    private func makeBomb(_ url: URL, zeros: Int, patch: ((inout Data) -> Void)? = nil) throws {
        try BadInputs.writeZip(url, files: [], data: [("a.txt", Data("first".utf8)), ("zeros.bin", Data(count: zeros))])
        guard let patch else { return }
        var data = try Data(contentsOf: url)
        patch(&data)
        try data.write(to: url)
    }

    /// Sets a 32-bit field of the local header and the central directory header of `name`.
    private func setField(_ data: inout Data, name: String, local: Int, central: Int, to value: UInt32) {
        let bytes = [UInt8](data)
        let name = [UInt8](name.utf8)
        func find(_ signature: [UInt8], nameAt: Int, lengthAt: Int, field: Int) {
            var i = 0
            while i + nameAt + name.count <= bytes.count {
                if Array(bytes[i..<i + 4]) == signature {
                    let length = Int(bytes[i + lengthAt]) | Int(bytes[i + lengthAt + 1]) << 8
                    if length == name.count && Array(bytes[(i + nameAt)..<(i + nameAt + length)]) == name {
                        for k in 0..<4 { data[i + field + k] = UInt8((value >> (8 * UInt32(k))) & 0xFF) }
                    }
                }
                i += 1
            }
        }
        find([0x50, 0x4B, 0x03, 0x04], nameAt: 30, lengthAt: 26, field: local)
        find([0x50, 0x4B, 0x01, 0x02], nameAt: 46, lengthAt: 28, field: central)
    }

    func testCompressionRatioIsRefusedBeforeAnythingIsWritten() throws {
        let directory = try makeBridgeTestDirectory(self)
        let zip = directory.appendingPathComponent("bomb.zip")
        try makeBomb(zip, zeros: 64 << 20)
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination)) { error in
            let error = error as? CVisionError
            XCTAssertEqual(error?.code, .limitExceeded)
            XCTAssertTrue(error?.message.contains("entry \"zeros.bin\" would inflate") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("a ratio over the cap of 200") == true, error?.message ?? "")
        }
        // Not even the good entry before it: the refusal came from the directory, before writing.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), [])
        // The same archive behind a self-extractor's stub is read the same way.
        let stub = directory.appendingPathComponent("sfx.zip")
        try (Data("#!/bin/sh\nexit 0\n".utf8) + Data(repeating: 0x78, count: 1000) + Data(contentsOf: zip)).write(to: stub)
        XCTAssertThrowsError(try ZipArchive.extract(stub, to: destination)) { error in
            XCTAssertTrue((error as? CVisionError)?.message.contains("would inflate") == true, "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), [])
        // A declared size over the per-entry cap is refused before writing too.
        var limits = UnzipLimits()
        limits.maxEntryBytes = 1 << 20
        limits.maxCompressionRatio = 10_000
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination, limits: limits)) { error in
            XCTAssertTrue((error as? CVisionError)?.message.contains("declares 67108864 bytes, over the per-entry cap") == true,
                          "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), [])
    }

    func testAHeaderThatUnderstatesTheSizeIsCaughtWhileStreaming() throws {
        let directory = try makeBridgeTestDirectory(self)
        let zip = directory.appendingPathComponent("liar.zip")
        // 4 MiB of zeros declared as 100,000 bytes: a ratio of 25 on paper.
        try makeBomb(zip, zeros: 4 << 20) { self.setField(&$0, name: "zeros.bin", local: 22, central: 24, to: 100_000) }
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination)) { error in
            XCTAssertEqual((error as? CVisionError)?.message,
                           "liar.zip: entry \"zeros.bin\" inflates beyond the 100000 bytes its header declares")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.appendingPathComponent("zeros.bin").path),
                       "no half-written entry")
    }

    func testAHeaderThatOverstatesTheCompressedSizeIsCaughtWhileStreaming() throws {
        let directory = try makeBridgeTestDirectory(self)
        let zip = directory.appendingPathComponent("liar.zip")
        // 64 MiB of zeros whose headers claim 1 MiB compressed: a ratio of 64 on paper, 1000 in fact.
        try makeBomb(zip, zeros: 64 << 20) { self.setField(&$0, name: "zeros.bin", local: 18, central: 20, to: 1 << 20) }
        let destination = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        XCTAssertThrowsError(try ZipArchive.extract(zip, to: destination)) { error in
            XCTAssertEqual((error as? CVisionError)?.message,
                           "liar.zip: entry \"zeros.bin\" inflates more than 200 times (a zip bomb?)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.appendingPathComponent("zeros.bin").path))
    }
}
