import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Whole-run progress: the stage's number among the run's, the run's ETA from the stages' cost
/// shares, heartbeats while a stage is silent, and the one closing line a run ends with.
final class RunProgressTests: XCTestCase {
    /// The lines a JSON printer wrote, parsed.
    private func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], $0) }
    }

    func testThePlanWeighsTheStagesDoneAndLeavesResumedOnesOut() throws {
        let plan = RunPlan(stages: ["a", "b", "c", "d"], shares: [1, 2, 3, 4], current: 2)
        XCTAssertEqual(plan.index, 3)
        XCTAssertEqual(plan.count, 4)
        XCTAssertEqual(try XCTUnwrap(plan.fractionDone(stageFraction: 0)), 0.3, accuracy: 1e-12, "a and b: 3 of 10")
        XCTAssertEqual(try XCTUnwrap(plan.fractionDone(stageFraction: 0.5)), 0.45, accuracy: 1e-12, "and half of c's 3")
        XCTAssertEqual(try XCTUnwrap(plan.fractionDone(stageFraction: 7)), 0.6, accuracy: 1e-12, "a stage is done at most once")
        XCTAssertEqual(try XCTUnwrap(plan.fractionDone(stageFraction: 0, resumed: ["b"])), 1.0 / 8, accuracy: 1e-12,
                       "a resumed stage cost nothing: a's 1 of the 8 left")
        XCTAssertNil(RunPlan(stages: ["a"], shares: [1], current: 0).fractionDone(stageFraction: 0, resumed: ["a"]))

        XCTAssertNil(RunPlan.remainingSeconds(elapsed: 10, fractionDone: nil))
        XCTAssertNil(RunPlan.remainingSeconds(elapsed: 10, fractionDone: 0.005), "below 1 % of the work")
        XCTAssertNil(RunPlan.remainingSeconds(elapsed: 1, fractionDone: 0.5), "before 2 s")
        XCTAssertEqual(try XCTUnwrap(RunPlan.remainingSeconds(elapsed: 30, fractionDone: 0.25)), 90, accuracy: 1e-9,
                       "30 s for a quarter: 90 s for the rest")
        XCTAssertEqual(RunPlan.remainingSeconds(elapsed: 30, fractionDone: 1), 0)
    }

    /// Every stage of the pipeline weighs something at every level; a stage run again takes its
    /// stage's share; at every level the dense and surface stages are most of a full run.
    func testEveryStageHasAShareAtEveryLevel() {
        let names = ReconstructionPipeline.stages(ReconstructionOptions()).map(\.name)
        XCTAssertTrue(names.contains("features-unmasked"))
        for level in DetailLevel.allCases {
            let shares = names.map { StageCostShares.share(of: $0, at: level) }
            XCTAssertTrue(shares.allSatisfy { $0 > 0 }, "\(level)")
            XCTAssertEqual(StageCostShares.share(of: "features-unmasked", at: level), StageCostShares.share(of: "features", at: level))
            XCTAssertEqual(StageCostShares.share(of: "sparse-finer", at: level), StageCostShares.share(of: "sparse", at: level))
            let heavy = ["dense", "surface"].map { StageCostShares.share(of: $0, at: level) }.reduce(0, +)
            let once = Set(names.filter { !$0.hasSuffix("-unmasked") && StageCostShares.sameAs[$0] == nil })
            let all = once.map { StageCostShares.share(of: $0, at: level) }.reduce(0, +)
            XCTAssertGreaterThan(heavy / all, 0.7, "\(level): dense and surface are most of a run")
        }
    }

    /// A stage in a plan: its lines carry its number and the run's count; silent for 3 s in a
    /// step with an estimate, it gets a heartbeat saying so; once the run has measured itself
    /// the run's ETA is there; after the closing line nothing more is written and the stage is
    /// asked to stop.
    func testLinesCarryTheStageNumberHeartbeatsAndOneClosingLine() throws {
        let lines = LockedLines()
        let printer = ProgressPrinter(mode: .json) { lines.append($0) }
        printer.plan(RunPlan(stages: ["features", "surface", "report"], shares: [1, 8, 1], current: 1))
        printer.event(.stageStarted, "surface: started", subject: "surface")
        XCTAssertTrue(printer.update(stage: "surface", done: 0, total: 5))
        printer.step(stage: "surface", "poisson at depth 8 over 1000 points", estimatedSeconds: 12.3)
        Thread.sleep(forTimeInterval: ProgressPrinter.heartbeatSeconds + 1.2)
        XCTAssertTrue(printer.update(stage: "surface", done: 1, total: 5))
        printer.finished(stage: "surface", seconds: 4.3)
        printer.close(.finished(.init(status: "complete", outputs: ["model_glb": "/x/model.glb"],
                                      figures: .init(imagesRegistered: 11, imagesTotal: 12, verdict: "good",
                                                     meanReprojectionErrorPx: 0.5, triangles: 1000))))
        XCTAssertFalse(printer.update(stage: "report", done: 0, total: 1), "closed: the stages are asked to stop")
        printer.event(.stageStarted, "report: started", subject: "report")
        printer.close(.failed("too late"))
        Thread.sleep(forTimeInterval: 1.2)

        let objects = try objects(lines.all)
        let kinds = objects.map { $0["event"] as? String ?? "" }
        XCTAssertEqual(kinds.first, "note")
        XCTAssertEqual(Array(kinds.suffix(3)), ["progress", "stage", "finished"], "\(kinds)")
        XCTAssertEqual(kinds.filter { $0 == "finished" || $0 == "failed" }.count, 1, "one closing line")
        let heartbeat = try XCTUnwrap(objects.first { $0["event"] as? String == "heartbeat" }, "\(kinds)")
        XCTAssertEqual(heartbeat["stage"] as? String, "surface")
        XCTAssertEqual(heartbeat["index"] as? Int, 2)
        XCTAssertEqual(heartbeat["count"] as? Int, 3)
        XCTAssertEqual(heartbeat["step"] as? String, "poisson at depth 8 over 1000 points")
        XCTAssertEqual(heartbeat["step_estimate_s"] as? Double, 12.3)
        XCTAssertGreaterThanOrEqual(heartbeat["step_elapsed_s"] as? Double ?? 0, ProgressPrinter.heartbeatSeconds - 0.1)
        XCTAssertTrue((heartbeat["message"] as? String)?.contains("of about 13 s (an estimate)") == true, "\(heartbeat)")
        let progress = objects.filter { $0["event"] as? String == "progress" }
        XCTAssertEqual(progress.map { $0["index"] as? Int }, [2, 2])
        XCTAssertEqual(progress.map { $0["count"] as? Int }, [3, 3])
        XCTAssertTrue(progress[0]["run_eta_s"] is NSNull, "nothing measured yet")
        // 1 of 10 done (features) plus a fifth of surface's 8: 2.6 of 10 in about 4.2 s.
        let runETA = try XCTUnwrap(progress[1]["run_eta_s"] as? Double)
        let elapsed = try XCTUnwrap(progress[1]["t"] as? Double)
        XCTAssertEqual(runETA, elapsed / 0.26 * 0.74, accuracy: 0.2)
        let closing = try XCTUnwrap(objects.last)
        XCTAssertEqual(closing["code"] as? Int, PipelineEvent.finished.code)
        XCTAssertEqual(closing["status"] as? String, "complete")
        XCTAssertEqual(closing["outputs"] as? [String: String], ["model_glb": "/x/model.glb"])
        let report = try XCTUnwrap(closing["report"] as? [String: Any])
        XCTAssertEqual(report["images_registered"] as? Int, 11)
        XCTAssertEqual(report["verdict"] as? String, "good")
        XCTAssertEqual(report["triangles"] as? Int, 1000)
        XCTAssertEqual(report["mean_reprojection_error_px"] as? Double, 0.5)
    }

    /// A part of the running stage ("dense: depth maps") moves the run's fraction as the stage's
    /// own count would; the next part starting over does not take it back.
    func testAPartOfTheRunningStageCountsForIt() throws {
        let lines = LockedLines()
        let printer = ProgressPrinter(mode: .json) { lines.append($0) }
        printer.plan(RunPlan(stages: ["sparse", "dense"], shares: [1, 1], current: 1))
        printer.event(.stageStarted, "dense: started", subject: "dense")
        _ = printer.update(stage: "dense: depth maps", done: 6, total: 12)
        XCTAssertEqual(try XCTUnwrap(printer.running?.fraction), 0.5, accuracy: 1e-12)
        _ = printer.update(stage: "dense: fusion", done: 0, total: 1)
        XCTAssertEqual(try XCTUnwrap(printer.running?.fraction), 0.5, accuracy: 1e-12)
        _ = printer.update(stage: "denser", done: 1, total: 1)
        XCTAssertEqual(try XCTUnwrap(printer.running?.fraction), 0.5, accuracy: 1e-12, "another stage's name is not a part")
        _ = printer.update(stage: "dense", done: 1, total: 4)
        XCTAssertEqual(try XCTUnwrap(printer.running?.fraction), 0.25, accuracy: 1e-12, "the stage's own count rules")
        XCTAssertEqual(try XCTUnwrap(printer.runRemainingSeconds(now: printer.started + 10)), 10 / 0.625 * 0.375, accuracy: 1e-9)
    }

    /// A failure and an interruption close alike, with the message and, for a signal, its exit status.
    func testFailedAndInterruptedClosingLines() throws {
        let cases: [(ProgressPrinter.Closing, String, [String: Any])] = [
            (.failed("x: broken"), "failed", [:]),
            (.interrupted(signal: SIGTERM, message: "interrupted by SIGTERM"), "interrupted", ["signal": "SIGTERM", "exit_status": 143]),
        ]
        for (closing, event, extra) in cases {
            let lines = LockedLines()
            let printer = ProgressPrinter(mode: .json) { lines.append($0) }
            printer.close(closing)
            printer.close(.failed("second"))
            let objects = try objects(lines.all)
            XCTAssertEqual(objects.count, 1)
            XCTAssertEqual(objects[0]["event"] as? String, event)
            XCTAssertEqual(objects[0]["severity"] as? String, event == "failed" ? "error" : "warning")
            XCTAssertNotEqual(objects[0]["message"] as? String, "second")
            for (key, value) in extra { XCTAssertEqual("\(objects[0][key] ?? "")", "\(value)", key) }
        }
    }

    /// The Poisson estimate grows with the points and the depth, and falls with the threads.
    func testThePoissonEstimate() {
        let base = SurfaceReconstruction.poissonSecondsEstimate(depth: 8, points: 386_065, threads: 2)
        XCTAssertEqual(base, 3.5, accuracy: 0.1, "templeRing-12 at preview on an idle machine")
        XCTAssertEqual(SurfaceReconstruction.poissonSecondsEstimate(depth: 10, points: 4_066_032, threads: 2), 105, accuracy: 15,
                       "the 48-image orbit at full")
        XCTAssertEqual(SurfaceReconstruction.poissonSecondsEstimate(depth: 8, points: 386_065, threads: 4), base / 2, accuracy: 1e-9)
    }
}

/// Lines written from several threads (the heartbeat's timer), kept in order.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}
