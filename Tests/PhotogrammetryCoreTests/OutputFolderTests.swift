import Foundation
import XCTest
@testable import PhotogrammetryCore
import PhotogrammetryTestSupport

/// OUTPUT folders that cannot be one fail at once, in one line that says why.
final class OutputFolderTests: XCTestCase {
    func testMakesNestedFoldersAndTheWorkFolder() throws {
        let root = try makeBridgeTestDirectory(self)
        let output = root.appendingPathComponent("a/b/out")
        try OutputFolder.prepare(output, work: output.appendingPathComponent("work"))
        XCTAssertTrue(OutputFolder.isDirectory(output.appendingPathComponent("work").path))
        try OutputFolder.prepare(output, work: output.appendingPathComponent("work"))  // again: nothing to do
    }

    func testAFileIsNotAFolder() throws {
        let root = try makeBridgeTestDirectory(self)
        let file = root.appendingPathComponent("report.json")
        try Data("keep me".utf8).write(to: file)
        XCTAssertThrowsError(try OutputFolder.prepare(file, work: file.appendingPathComponent("work"))) { error in
            XCTAssertEqual("\(error)", "cannot write OUTPUT \(file.path): it is a file, not a folder")
        }
        let below = file.appendingPathComponent("out")
        XCTAssertThrowsError(try OutputFolder.prepare(below, work: below.appendingPathComponent("work"))) { error in
            XCTAssertEqual("\(error)", "cannot write OUTPUT \(below.path): \(file.path) is a file, not a folder")
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep me")
    }

    func testAFolderThatCannotBeWrittenSaysSo() throws {
        // A folder without write permission stops everyone but root; sysfs refuses even root.
        if geteuid() != 0 {
            let root = try makeBridgeTestDirectory(self)
            let locked = root.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            chmod(locked.path, 0o500)
            defer { chmod(locked.path, 0o700) }
            let output = locked.appendingPathComponent("out")
            XCTAssertThrowsError(try OutputFolder.prepare(output, work: output.appendingPathComponent("work"))) { error in
                XCTAssertEqual("\(error)", "cannot write OUTPUT \(output.path): permission denied")
            }
        }
        let sys = URL(fileURLWithPath: "/sys/photogrammetry-test-output")
        try XCTSkipUnless(OutputFolder.isDirectory("/sys"), "no /sys on this machine")
        XCTAssertThrowsError(try OutputFolder.prepare(sys, work: sys.appendingPathComponent("work"))) { error in
            XCTAssertEqual("\(error)", "cannot write OUTPUT \(sys.path): operation not permitted")
        }
    }
}
