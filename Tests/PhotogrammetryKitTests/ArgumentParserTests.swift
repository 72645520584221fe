import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

final class ArgumentParserTests: XCTestCase {
    let parser = ArgumentParser(valueOptions: ["threads", "intrinsics"], flags: ["sparse-only"])

    func testPositionalsOptionsAndFlags() throws {
        let parsed = try parser.parse(["in.zip", "--threads", "2", "out", "--sparse-only", "--intrinsics=1,2,3,4"])
        XCTAssertEqual(parsed.positionals, ["in.zip", "out"])
        XCTAssertEqual(parsed["threads"], "2")
        XCTAssertEqual(parsed["intrinsics"], "1,2,3,4")
        XCTAssertTrue(parsed.flags.contains("sparse-only"))
    }

    func testErrorsNameTheWord() {
        XCTAssertThrowsError(try parser.parse(["--bogus"])) { XCTAssertEqual("\($0)", "unknown option --bogus") }
        XCTAssertThrowsError(try parser.parse(["--threads"])) { XCTAssertEqual("\($0)", "--threads needs a value") }
        XCTAssertThrowsError(try parser.parse(["--sparse-only=1"])) { XCTAssertEqual("\($0)", "--sparse-only takes no value") }
    }

    func testDoubleDashEndsOptions() throws {
        XCTAssertEqual(try parser.parse(["--", "--threads"]).positionals, ["--threads"])
    }
}
