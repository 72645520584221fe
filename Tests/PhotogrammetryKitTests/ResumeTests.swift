import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Resume from any stage on the bundled templeRing-12 (sparse only, to stay fast): a lost
/// checkpoint, a changed option, a copied capture, and a SIGKILL of the built program.
final class ResumeTests: XCTestCase {
    static let capture = Repository.datasets.appendingPathComponent("templeRing-12")

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func resumed(_ report: Report) -> [String] { report.stages.filter(\.resumed).map(\.name) }

    /// A COLMAP text model's files, byte for byte.
    private func files(_ folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            result[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return result
    }

    func testRerunResumesFromTheFirstMissingCheckpoint() throws {
        let work = try temporaryDirectory()
        // A copy of the capture: new paths and modification times, the same bytes.
        let copyA = work.appendingPathComponent("a"), copyB = work.appendingPathComponent("b")
        try FileManager.default.copyItem(at: Self.capture.appendingPathComponent("images"), to: copyA)
        let output = work.appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let first = try ReconstructionPipeline(input: copyA, output: output, options: options, progress: nil).run()
        XCTAssertEqual(first.imagesRegistered, 12)
        XCTAssertEqual(resumed(first), [])
        XCTAssertEqual(first.stages.map(\.name), ReconstructionPipeline.stages(options).map(\.name).filter { !$0.hasSuffix("-unmasked") },
                       "every stage of the list but the reruns without automatic masks, which did not run")
        XCTAssertEqual(first.stages.filter(\.skipped).map(\.name),
                       ["rematching", "sparse-rematched", "finer-features", "finer-matching", "sparse-finer", "even-turn", "mask-check", "prior-alignment",
                        "dense", "surface", "model"], "every image registered in the first SfM; no priors; sparse only")
        XCTAssertTrue(first.stages.filter { !$0.skipped }.allSatisfy { $0.peakMemoryMB ?? 0 > 0 })
        let model = try files(output.appendingPathComponent("sparse"))

        // The export's checkpoint corrupted and the model gone, as after a kill in export;
        // leftovers of the kill planted.
        let checkpoints = OutputLayout(folder: output).checkpoints
        try Data("garbage".utf8).write(to: checkpoints.appendingPathComponent("export.json"))
        try FileManager.default.removeItem(at: output.appendingPathComponent("sparse"))
        let leftover = output.appendingPathComponent(".sparse.4242.tmp")
        try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
        try Data().write(to: checkpoints.appendingPathComponent(".matching.json.4242.tmp"))
        let second = try ReconstructionPipeline(input: copyA, output: output, options: options, progress: nil).run()
        XCTAssertEqual(resumed(second), ["segmentation", "features", "matching", "sparse", "metric-scale", "upright"])
        XCTAssertEqual(second.imagesRegistered, first.imagesRegistered)
        XCTAssertEqual(second.points3D, first.points3D)
        XCTAssertEqual(try files(output.appendingPathComponent("sparse")), model, "the loaded model, written again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoints.appendingPathComponent(".matching.json.4242.tmp").path))

        // The same bytes elsewhere (a capture copied, a zip unpacked again) resume too.
        try FileManager.default.copyItem(at: copyA, to: copyB)
        let third = try ReconstructionPipeline(input: copyB, output: output, options: options, progress: nil).run()
        XCTAssertEqual(resumed(third), ["segmentation", "features", "matching", "sparse", "metric-scale", "upright", "export"])
        XCTAssertEqual(third.points3D, first.points3D)

        // A mapper option reruns sparse and what follows it, not features or matching.
        options.mapper.maxRegistrationTrials = 4
        let fourth = try ReconstructionPipeline(input: copyB, output: output, options: options, progress: nil).run()
        XCTAssertEqual(resumed(fourth), ["segmentation", "features", "matching"])
        XCTAssertEqual(fourth.imagesRegistered, 12)
    }

    /// SIGKILL during sparse: the rerun resumes features and matching and ends as an
    /// uninterrupted run does.
    func testSigkillDuringSparseThenRerun() throws {
        let work = try temporaryDirectory()
        let logs = work.appendingPathComponent("logs")
        func arguments(_ output: URL) -> [String] {
            ["reconstruct", Self.capture.path, output.path, "--sparse-only", "--progress", "json", "--threads", "2"]
        }
        let reference = work.appendingPathComponent("reference")
        let uninterrupted = try BuiltProgram.run(arguments(reference), timeout: 120, logs: logs)
        XCTAssertEqual(uninterrupted.status, 0, uninterrupted.standardError)

        let output = work.appendingPathComponent("out")
        let running = try BuiltProgram.start(arguments(output), logs: logs)
        let deadline = Date().addingTimeInterval(60)
        var killed = false
        while Date() < deadline && running.process.isRunning {
            let text = (try? String(contentsOf: running.out, encoding: .utf8)) ?? ""
            // Sparse running: its progress after its start.
            if text.split(separator: "\n").contains(where: { $0.contains(#""event":"progress""#) && $0.contains(#""stage":"sparse""#) }) {
                kill(running.process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            usleep(20_000)
        }
        _ = try running.wait(timeout: 30)
        XCTAssertTrue(killed, "sparse was never seen running")
        XCTAssertEqual(running.process.terminationReason, .uncaughtSignal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("report.json").path))

        let rerun = try BuiltProgram.run(arguments(output), timeout: 120, logs: logs)
        XCTAssertEqual(rerun.status, 0, rerun.standardError)
        let resumedStages = rerun.outputLines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["code"] as? Int == PipelineEvent.stageResumed.code else { return nil }
            return object["subject"] as? String
        }
        XCTAssertEqual(resumedStages, ["segmentation", "features", "matching"])
        func report(_ folder: URL) throws -> [String: Any] {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("report.json"))) as? [String: Any])
        }
        let expected = try report(reference), got = try report(output)
        XCTAssertEqual(got["images_registered"] as? Int, expected["images_registered"] as? Int)
        XCTAssertEqual(got["points3D"] as? Int, expected["points3D"] as? Int)
        XCTAssertEqual(got["complete"] as? Bool, true)
        let stages = try XCTUnwrap(got["stages"] as? [[String: Any]])
        XCTAssertEqual(stages.filter { $0["resumed"] as? Bool == true }.compactMap { $0["name"] as? String }, ["segmentation", "features", "matching"])
    }
}
