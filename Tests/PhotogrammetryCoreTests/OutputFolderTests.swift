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
        // A folder the test makes read-only stops everyone but root; a file standing where the
        // run's folder work/ must go stops root too. (No system folder such as /sys is relied on:
        // whether root may write there is the machine's or the container's choice.)
        let root = try makeBridgeTestDirectory(self)
        if geteuid() != 0 {
            let locked = root.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            chmod(locked.path, 0o500)
            defer { chmod(locked.path, 0o700) }
            let output = locked.appendingPathComponent("out")
            XCTAssertThrowsError(try OutputFolder.prepare(output, work: output.appendingPathComponent("work"))) { error in
                XCTAssertEqual("\(error)", "cannot write OUTPUT \(output.path): permission denied")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked.path), [], "nothing written")
        }
        let output = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: false)
        let work = output.appendingPathComponent("work")
        try Data("keep me".utf8).write(to: work)
        XCTAssertThrowsError(try OutputFolder.prepare(output, work: work)) { error in
            XCTAssertEqual("\(error)", "cannot write OUTPUT \(output.path): \(work.path) is a file, not a folder")
        }
        XCTAssertEqual(try String(contentsOf: work, encoding: .utf8), "keep me")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), ["work"], "nothing written in OUTPUT")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: root.path)),
                       geteuid() != 0 ? ["locked", "out"] : ["out"], "nothing written outside OUTPUT")
    }
}
