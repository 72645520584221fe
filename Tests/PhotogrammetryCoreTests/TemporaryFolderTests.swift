import Foundation
import XCTest
@testable import PhotogrammetryCore
import PhotogrammetryTestSupport

/// Temporary folders no one could have planted beforehand.
final class TemporaryFolderTests: XCTestCase {
    func testFoldersAreFreshPrivateAndReal() throws {
        let a = try TemporaryFolder.make(prefix: "pg-test-")
        let b = try TemporaryFolder.make(prefix: "pg-test-")
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        XCTAssertNotEqual(a.path, b.path)
        XCTAssertTrue(a.lastPathComponent.hasPrefix("pg-test-"))
        XCTAssertEqual(a.deletingLastPathComponent().standardizedFileURL.path,
                       URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path)
        var info = stat()
        XCTAssertEqual(lstat(a.path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFDIR, "a folder, not a link")
        XCTAssertEqual(info.st_mode & 0o777, 0o700, "private to its owner")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: a.path), [])
    }
}
