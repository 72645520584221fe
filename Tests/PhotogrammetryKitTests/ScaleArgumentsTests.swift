import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `--markers`, `--scale` and `--known-distance` as a user types them, and a malformed
/// `markers.json` beside the images: one line naming the option or the file, nothing written.
final class ScaleArgumentsTests: XCTestCase {
    func testValuesAreRead() throws {
        let read = try ScaleArguments.read(markers: "apriltag_36h11:0.08", scale: nil, knownDistance: "3,7=0.5")
        XCTAssertEqual(read.markers?.dictionary.name, "DICT_APRILTAG_36h11")
        XCTAssertEqual(read.markers?.sizeMetres, 0.08)
        XCTAssertEqual(read.scale?.knownDistance?.markerIDs, [3, 7])
        XCTAssertEqual(try ScaleArguments.read(markers: nil, scale: "0.25", knownDistance: nil).scale, .factor(0.25))
        XCTAssertNil(try ScaleArguments.read(markers: nil, scale: nil, knownDistance: nil).scale)
    }

    func testBadValuesAreOneLineNamingTheOption() throws {
        let cases: [(String?, String?, String?, String)] = [
            ("DICT_9X9_50:0.05", nil, nil, "--markers DICT_9X9_50:0.05: no marker dictionary \"DICT_9X9_50\""),
            ("DICT_4X4_50:-0.05", nil, nil, "--markers DICT_4X4_50:-0.05: size -0.05 is not a length in metres above 0"),
            ("DICT_4X4_50", nil, nil, "--markers DICT_4X4_50: no size"),
            (nil, "-2", nil, "--scale -2: not a number above 0"),
            (nil, "2", "3,7=1", "--scale and --known-distance both given"),
            ("DICT_4X4_50:0.05", nil, "3,70=0.5", "--known-distance 3,70=0.5: marker id 70 is not in DICT_4X4_50 (ids 0 to 49)"),
            (nil, nil, "3,7=-0.5", "--known-distance 3,7=-0.5: distance \"-0.5\" is not a number of metres above 0"),
        ]
        for (markers, scale, distance, start) in cases {
            XCTAssertThrowsError(try ScaleArguments.read(markers: markers, scale: scale, knownDistance: distance), start) { error in
                let message = (error as? ArgumentParser.Failure)?.description ?? "\(error)"
                XCTAssertTrue(message.hasPrefix(start), message)
                XCTAssertFalse(message.contains("\n"), message)
            }
        }
    }

    func testTheProgramRefusesBadValuesAndAMalformedMarkersFile() throws {
        let folder = try makeBridgeTestDirectory(self)
        let input = folder.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(3, to: input)
        let output = folder.appendingPathComponent("out")
        for (option, value) in [("--markers", "DICT_4X4_50:0"), ("--scale", "abc"), ("--known-distance", "a.jpg@1,2=3")] {
            let outcome = try BuiltProgram.run(["reconstruct", input.path, output.path, option, value], logs: folder)
            XCTAssertEqual(outcome.status, 2, option)
            XCTAssertEqual(outcome.errorLines.count, 1, "\(outcome.errorLines)")
            XCTAssertTrue(outcome.errorLines.first?.hasPrefix("photogrammetry: error: \(option) \(value): ") == true, "\(outcome.errorLines)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "refused before anything is written")

        // Marker ids in --known-distance need a dictionary: none given, none beside the images.
        let noMarkers = try BuiltProgram.run(["reconstruct", input.path, output.path, "--sparse-only", "--known-distance", "1,2=0.3"],
                                             logs: folder)
        XCTAssertEqual(noMarkers.status, 1)
        XCTAssertEqual(noMarkers.errorLines.count, 1, "\(noMarkers.errorLines)")
        XCTAssertTrue(noMarkers.errorLines.first?.contains("--known-distance names markers") == true, "\(noMarkers.errorLines)")

        let file = input.appendingPathComponent("markers.json")
        try Data(#"{"dictionary": "DICT_4X4_50", "size_m": "5 cm"}"#.utf8).write(to: file)
        let outcome = try BuiltProgram.run(["reconstruct", input.path, folder.appendingPathComponent("out2").path, "--sparse-only"],
                                           logs: folder)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines.count, 1, "\(outcome.errorLines)")
        XCTAssertTrue(outcome.errorLines.first?.hasPrefix("photogrammetry: error: \(file.path): ") == true, "\(outcome.errorLines)")
        XCTAssertTrue(outcome.errorLines.first?.hasSuffix("; --markers DICT:SIZE_M overrides it") == true, "\(outcome.errorLines)")
    }
}
