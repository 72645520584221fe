import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `--progress json` and the event codes: every line from a real encoder, one line whatever a
/// message holds, the keys a program relies on, and codes that are unique and documented.
final class ProgressEventsTests: XCTestCase {
    static let repository = Repository.root

    func testCodesAndNamesAreUnique() {
        let events = PipelineEvent.allCases
        XCTAssertEqual(Set(events.map(\.code)).count, events.count, "codes")
        XCTAssertEqual(Set(events.map(\.name)).count, events.count, "names")
        for event in events {
            XCTAssertNotNil(event.name.range(of: "^[a-z]+(_[a-z]+)*$", options: .regularExpression), event.name)
            XCTAssertFalse(event.summary.isEmpty, event.name)
        }
        XCTAssertEqual(PipelineEvent.frameBlurred.name, "frame_blurred")
        XCTAssertEqual(PipelineEvent.fewViewsFullResolution.name, "few_views_full_resolution")
    }

    /// docs/outputs.md's table is the users' copy of the codes: every code with its name,
    /// severity, subject and summary as the enum has them, and nothing else.
    func testTheOutputsDocumentListsEveryCode() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("docs/outputs.md"), encoding: .utf8)
        var rows: [Int: [String]] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
            // | code | `name` | severity | subject | when |
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, let code = Int(cells[0]) else { continue }
            XCTAssertNil(rows[code], "code \(code) twice in docs/outputs.md")
            rows[code] = [cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2], cells[3], cells[4]]
        }
        XCTAssertEqual(Set(rows.keys), Set(PipelineEvent.allCases.map(\.code)))
        for event in PipelineEvent.allCases {
            XCTAssertEqual(rows[event.code], [event.name, event.severity.rawValue, event.subjectKind ?? "", event.summary],
                           "\(event.code)")
        }
    }

    func testANoteWithLineBreaksQuotesAndControlCharactersStaysOneJSONLine() throws {
        var lines: [String] = []
        let printer = ProgressPrinter(mode: .json) { lines.append($0) }
        let message = "rejected evil\nname \"quoted\" back\\slash\ttab \u{1B}[31mred\u{0}nul\u{7} sep\u{2028}par\u{2029}nel\u{85} é"
        printer.event(.imageRejected, message, subject: "evil\nname")
        XCTAssertEqual(lines.count, 1)
        let line = try XCTUnwrap(lines.first)
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" || $0 == "\u{85}" },
                       "no raw control or separator characters: \(line)")
        XCTAssertEqual(line.split(whereSeparator: \.isNewline).count, 1, "one line for any line reader")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["message"] as? String, message, "the text survives exactly")
        XCTAssertEqual(object["subject"] as? String, "evil\nname")
        XCTAssertEqual(object["code"] as? Int, 100)
        XCTAssertEqual(object["name"] as? String, "image_rejected")
        XCTAssertEqual(object["severity"] as? String, "warning")
        XCTAssertEqual(object["event"] as? String, "note")
        XCTAssertEqual(object["schema"] as? Int, ProgressPrinter.jsonSchema)
        XCTAssertNotNil(object["t"] as? Double)
    }

    func testProgressLinesCarryAnETAOnceMeasurable() throws {
        var lines: [String] = []
        let printer = ProgressPrinter(mode: .json) { lines.append($0) }
        _ = printer.update(stage: "features", done: 1, total: 4)
        Thread.sleep(forTimeInterval: 0.05)
        _ = printer.update(stage: "features", done: 2, total: 4)
        _ = printer.update(stage: "features", done: 4, total: 4)
        printer.finished(stage: "features", seconds: 0.1)
        let objects = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.count, 4)
        for object in objects.prefix(3) {
            XCTAssertEqual(Set(object.keys), ["event", "stage", "done", "total", "percent", "eta_s", "index", "count", "run_eta_s",
                                              "t", "schema"])
            XCTAssertTrue(object["index"] is NSNull && object["run_eta_s"] is NSNull, "no plan: no stage number, no run ETA")
        }
        let times = objects.compactMap { $0["t"] as? Double }
        XCTAssertEqual(times.count, objects.count, "every line has t")
        XCTAssertEqual(times, times.sorted(), "t never runs backwards")
        XCTAssertGreaterThanOrEqual(times[1] - times[0], 0.05, "t is seconds: the 0.05 s sleep shows")
        XCTAssertTrue(objects.allSatisfy { $0["schema"] as? Int == ProgressPrinter.jsonSchema })
        XCTAssertTrue(objects[0]["eta_s"] is NSNull, "no rate from one report")
        let eta = try XCTUnwrap(objects[1]["eta_s"] as? Double)
        XCTAssertGreaterThan(eta, 0.05, "two units left at 0.05 s or more each")
        XCTAssertLessThan(eta, 5)
        XCTAssertEqual(objects[2]["eta_s"] as? Double, 0)
        XCTAssertEqual(objects[1]["percent"] as? Int, 50)
        XCTAssertEqual(Set(objects[3].keys), ["event", "stage", "seconds", "index", "count", "t", "schema"])
    }

    func testStageRateFromTheFirstReportAndStartingOver() {
        var rate = StageRate(done: 1, total: 5, now: 10)
        XCTAssertNil(rate.observe(done: 1, total: 5, now: 11), "nothing done since the reference")
        XCTAssertEqual(rate.observe(done: 2, total: 5, now: 12) ?? -1, 6, accuracy: 1e-9, "2 s per unit, 3 left")
        XCTAssertEqual(rate.observe(done: 3, total: 5, now: 13) ?? -1, 3, accuracy: 1e-9, "1.5 s per unit, 2 left")
        XCTAssertNil(rate.observe(done: 1, total: 9, now: 14), "another total starts over")
        XCTAssertEqual(rate.observe(done: 3, total: 9, now: 15) ?? -1, 3, accuracy: 1e-9)
        XCTAssertNil(rate.observe(done: 0, total: 9, now: 16), "fewer done starts over")
        XCTAssertEqual(rate.observe(done: 9, total: 9, now: 17), 0)
        XCTAssertEqual(ProgressPrinter.etaText(nil), "")
        XCTAssertEqual(ProgressPrinter.etaText(7.6), "eta 8 s")
        XCTAssertEqual(ProgressPrinter.etaText(200), "eta 3 min 20 s")
        XCTAssertEqual(ProgressPrinter.etaText(3900), "eta 1 h 05 min")
    }

    /// A real sparse run: every line parses and has its kind's keys, every code is one of ours
    /// with its name and severity; a rerun says its features came from the checkpoint.
    func testEveryLineOfAJSONProgressRunParsesAndHasTheKeys() throws {
        let work = try makeBridgeTestDirectory(self)
        let output = work.appendingPathComponent("out")
        let arguments = ["reconstruct", Repository.datasets.appendingPathComponent("templeRing-12").path, output.path,
                         "--sparse-only", "--progress", "json"]
        let first = try BuiltProgram.run(arguments, logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(first.status, 0, first.standardError)
        let objects = try lineObjects(first)
        XCTAssertGreaterThan(objects.count, 20)
        // Heartbeats come only when a stage is silent for 3 s, which a busy machine may make it.
        let kinds = Set(objects.compactMap { $0["event"] as? String }).subtracting(["heartbeat"])
        XCTAssertEqual(kinds, ["progress", "stage", "note", "finished"])
        XCTAssertEqual(objects.last?["event"] as? String, "finished", "the closing event is the last line")
        XCTAssertEqual(objects.filter { $0["event"] as? String == "finished" }.count, 1)
        XCTAssertTrue(objects.contains { $0["event"] as? String == "progress" && $0["eta_s"] is Double },
                      "some progress line has a measured ETA")
        let ran = ["ingest", "segmentation", "features", "matching", "sparse", "diagnostics", "metric-scale", "upright", "export", "report"]
        XCTAssertEqual(objects.filter { $0["event"] as? String == "stage" }.compactMap { $0["stage"] as? String }, ran)
        XCTAssertEqual(objects.filter { $0["code"] as? Int == PipelineEvent.stageStarted.code }.compactMap { $0["subject"] as? String },
                       ran)
        // Each stage's lines name its number among the run's: one number per stage, from 1 in
        // the order they ran, of a count that stays what ran when nothing joins the plan late.
        let finishedStages = objects.filter { $0["event"] as? String == "stage" && ran.contains($0["stage"] as? String ?? "") }
        XCTAssertEqual(finishedStages.compactMap { $0["index"] as? Int }, Array(1...ran.count))
        XCTAssertEqual(finishedStages.last?["count"] as? Int, ran.count)
        XCTAssertEqual(finishedStages.compactMap { $0["count"] as? Int }, Array(repeating: ran.count, count: ran.count),
                       "every image registers at once: the passes for images left out are never counted ahead")
        let numbered = objects.filter { ["progress", "heartbeat"].contains($0["event"] as? String) }
        let indices = numbered.compactMap { $0["index"] as? Int }
        XCTAssertEqual(indices.count, numbered.count, "every progress line of a run's stage has its number")
        XCTAssertEqual(indices, indices.sorted())
        XCTAssertTrue(numbered.contains { $0["run_eta_s"] is Double }, "the run's ETA once measurable")
        let closing = try XCTUnwrap(objects.last)
        XCTAssertEqual(closing["status"] as? String, "complete")
        let outputs = try XCTUnwrap(closing["outputs"] as? [String: String])
        XCTAssertEqual(Set(outputs.keys), ["report_json", "report_html", "sparse"], "--sparse-only writes no dense cloud, no model")
        XCTAssertEqual(outputs["report_html"], output.appendingPathComponent("report.html").path)
        let headline = try XCTUnwrap(closing["report"] as? [String: Any])
        XCTAssertEqual(headline["images_registered"] as? Int, 12)
        XCTAssertEqual(headline["images_total"] as? Int, 12)
        XCTAssertNotNil(headline["verdict"] as? String)
        XCTAssertEqual(headline["mean_reprojection_error_px"] as? Double ?? 9, 0.5, accuracy: 0.5)
        XCTAssertNil(headline["triangles"], "no mesh")
        let codes = objects.compactMap { $0["code"] as? Int }
        XCTAssertTrue(codes.contains(PipelineEvent.pairsSelected.code))
        XCTAssertTrue(codes.contains(PipelineEvent.singleRing.code), "templeRing-12 is one ring")

        let second = try BuiltProgram.run(arguments, logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(second.status, 0, second.standardError)
        XCTAssertEqual(try lineObjects(second).filter { $0["code"] as? Int == PipelineEvent.stageResumed.code }
            .compactMap { $0["subject"] as? String }, ["segmentation", "features", "matching", "sparse", "metric-scale", "upright",
                                                       "export"])

        // Without the stage's checkpoint the per-image feature files still serve every image.
        try FileManager.default.removeItem(at: output.appendingPathComponent("work/checkpoints/features.json"))
        let third = try BuiltProgram.run(arguments, logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(third.status, 0, third.standardError)
        let resumed = try lineObjects(third).filter { $0["code"] as? Int == PipelineEvent.featuresResumed.code }
        XCTAssertEqual(resumed.count, 1)
        XCTAssertTrue((resumed.first?["message"] as? String)?.hasPrefix("features: 12 of 12 images from the checkpoint") == true)
    }

    /// A run that fails says so in its last JSON line, with the error's code and severity.
    func testAFailedRunEndsWithAnErrorEvent() throws {
        let work = try makeBridgeTestDirectory(self)
        let input = work.appendingPathComponent("two")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(2, to: input)
        let tooFew = try BuiltProgram.run(["reconstruct", input.path, work.appendingPathComponent("out").path, "--progress", "json"],
                                          logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(tooFew.status, 1)
        let tooFewLines = try lineObjects(tooFew)
        let closing = try XCTUnwrap(tooFewLines.last)
        XCTAssertEqual(closing["event"] as? String, "failed", "a failed run's last line is its closing event")
        XCTAssertEqual(closing["code"] as? Int, PipelineEvent.failed.code)
        XCTAssertEqual(closing["severity"] as? String, "error")
        XCTAssertEqual(closing["message"] as? String, "\(input.path): 2 usable images, at least 3 needed",
                       "the error line the command prints")
        let last = try XCTUnwrap(tooFewLines.dropLast().last)
        XCTAssertEqual(last["code"] as? Int, PipelineEvent.tooFewImages.code)
        XCTAssertEqual(last["severity"] as? String, "error")
        XCTAssertEqual(last["message"] as? String, "\(input.path): 2 usable images, at least 3 needed")

        let file = work.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let unwritable = try BuiltProgram.run(["reconstruct", input.path, file.path, "--progress", "json"],
                                              logs: work.appendingPathComponent("logs"))
        XCTAssertEqual(unwritable.status, 1)
        let unwritableLines = try lineObjects(unwritable)
        XCTAssertEqual(unwritableLines.last?["event"] as? String, "failed")
        XCTAssertEqual(unwritableLines.last?["message"] as? String, "cannot write OUTPUT \(file.path): it is a file, not a folder")
        XCTAssertEqual(unwritableLines.filter { ["finished", "failed", "interrupted"].contains($0["event"] as? String) }.count, 1)
        let failed = try XCTUnwrap(unwritableLines.dropLast().last)
        XCTAssertEqual(failed["code"] as? Int, PipelineEvent.stageFailed.code)
        XCTAssertEqual(failed["subject"] as? String, "setup")
        XCTAssertEqual(failed["message"] as? String, "setup failed: cannot write OUTPUT \(file.path): it is a file, not a folder")
    }

    /// Each standard output line as a JSON object with the keys of its kind.
    private func lineObjects(_ outcome: BuiltProgram.Outcome, file: StaticString = #filePath,
                             line: UInt = #line) throws -> [[String: Any]] {
        let stamp: Set<String> = ["t", "schema"]
        let keys: [String: Set<String>] = [
            "progress": stamp.union(["event", "stage", "done", "total", "percent", "eta_s", "index", "count", "run_eta_s"]),
            "stage": stamp.union(["event", "stage", "seconds", "index", "count"]),
            "note": stamp.union(["event", "code", "name", "severity", "message", "subject"]),
            "heartbeat": stamp.union(["event", "stage", "index", "count", "elapsed_s", "step", "step_elapsed_s", "step_estimate_s",
                                      "run_eta_s", "message"]),
            "finished": stamp.union(["event", "code", "severity", "seconds", "message", "status", "outputs", "report"]),
            "failed": stamp.union(["event", "code", "severity", "seconds", "message"]),
            "interrupted": stamp.union(["event", "code", "severity", "seconds", "message", "signal", "exit_status"]),
        ]
        return try outcome.outputLines.map { text in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text,
                                       file: file, line: line)
            let kind = try XCTUnwrap(object["event"] as? String, text, file: file, line: line)
            XCTAssertEqual(Set(object.keys), keys[kind], text, file: file, line: line)
            XCTAssertEqual(object["schema"] as? Int, ProgressPrinter.jsonSchema, text, file: file, line: line)
            XCTAssertGreaterThanOrEqual(object["t"] as? Double ?? -1, 0, text, file: file, line: line)
            if kind == "note" {
                let event = try XCTUnwrap(PipelineEvent(rawValue: object["code"] as? Int ?? -1), text, file: file, line: line)
                XCTAssertEqual(object["name"] as? String, event.name, file: file, line: line)
                XCTAssertEqual(object["severity"] as? String, event.severity.rawValue, file: file, line: line)
            }
            return object
        }
    }
}
