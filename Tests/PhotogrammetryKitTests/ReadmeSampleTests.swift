import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// README's first command, run as a newcomer runs it: the bundled sample it names reconstructs
/// to a good capture, the first report a newcomer sees.
final class ReadmeSampleTests: XCTestCase {
    /// The arguments README's first command gives the program: the words after
    /// `.build/release/photogrammetry` on its line that starts with `scripts/setup && `.
    static func readmeArguments() throws -> [String] {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let program = ".build/release/photogrammetry "
        let line = try XCTUnwrap(readme.split(separator: "\n").first { $0.hasPrefix("scripts/setup && ") && $0.contains(program) },
                                 "README.md has no command that builds and runs the program")
        let words = line[line.range(of: program)!.upperBound...].split(separator: " ").map(String.init)
        return words
    }

    /// All frames registered, the pose check passed, verdict "Good capture" (the whole circle,
    /// two heights), and the poses within AUC@5 95 of the sample's ground truth. How long it
    /// takes is measured in docs/benchmarks.md, not here.
    func testReadmeSampleReconstructsToAGoodCapture() throws {
        let arguments = try Self.readmeArguments()
        XCTAssertEqual(Array(arguments.prefix(1)), ["reconstruct"])
        XCTAssertEqual(arguments.count, 5, "reconstruct SAMPLE OUTPUT --detail LEVEL: \(arguments)")
        guard arguments.count == 5 else { return }
        let sample = Repository.root.appendingPathComponent(arguments[1])
        XCTAssertEqual(Array(arguments[3...]), ["--detail", "preview"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: sample.appendingPathComponent("SOURCE.md").path),
                      "\(arguments[1]) is a bundled capture with its provenance")

        let work = try makeBridgeTestDirectory(self)
        let output = work.appendingPathComponent("out")
        let outcome = try BuiltProgram.run(["reconstruct", sample.path, output.path] + arguments[3...],
                                           timeout: 600, logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(outcome.status, 0, outcome.standardError)

        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: output.appendingPathComponent("report.json")))
        let truth = try Reconstruction.readColmapText(from: sample.appendingPathComponent("gt_sparse"))
        XCTAssertEqual(report.imagesTotal, truth.images.count)
        XCTAssertEqual(report.imagesRegistered, truth.images.count)
        XCTAssertEqual(report.poseCheck?.passed, true)
        let verdict = CaptureVerdict(report)
        XCTAssertEqual(verdict.level, .good, verdict.problems.joined(separator: "; "))
        XCTAssertEqual(verdict.headline, "Good capture")
        XCTAssertGreaterThanOrEqual(report.azimuthCoverageDeg ?? 0, CaptureVerdict.minAzimuthCoverageDeg)
        XCTAssertGreaterThanOrEqual(report.elevationSpreadDeg ?? 0, CaptureVerdict.minElevationSpreadDeg)
        for model in ["model.glb", "model.usdz", "report.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(model).path), model)
        }

        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"),
                                          reference: sample.appendingPathComponent("gt_sparse"))
        XCTAssertEqual(comparison.registered, truth.images.count)
        XCTAssertGreaterThanOrEqual(comparison.auc.at5, 95, "pair AUC@5 against the sample's ground truth")
    }
}
