import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The built `photogrammetry` executable on what a new user gives it, as swift-argument-parser's
/// own tests run their binaries: exit codes, the one line on standard error, and what is (not)
/// left on disk. Run after `swift build` (the executable sits beside the test bundle).
final class CommandLineTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    /// Runs the executable with `arguments` in `directory`; a run that outlives `timeout` is
    /// killed and fails the test, so that a hang is a failure, not a stalled suite.
    /// - Parameter started: called with the process id as soon as it runs.
    private func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                     timeout: TimeInterval = 120, started: ((Int32) throws -> Void)? = nil,
                     file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let running = try BuiltProgram.start(arguments, in: directory, environment: environment,
                                             logs: try makeBridgeTestDirectory(self))
        try started?(running.process.processIdentifier)
        return try running.wait(timeout: timeout, file: file, line: line)
    }

    /// A capture folder with `good` of the bundled images.
    private func captureFolder(good: Int) throws -> URL {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(good, to: folder)
        return folder
    }

    private func rejectedReasons(_ report: URL) throws -> [String: String] {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let rejected = try XCTUnwrap(json["rejected_images"] as? [[String: String]])
        return Dictionary(uniqueKeysWithValues: rejected.map { ($0["name"] ?? "", $0["reason"] ?? "") })
    }

    // MARK: Arguments

    func testAnEmptyOutputIsRefusedAndTheCurrentFolderKept() throws {
        let input = try captureFolder(good: 3)
        let here = try makeBridgeTestDirectory(self)
        try Data("mine".utf8).write(to: here.appendingPathComponent("report.json"))
        for arguments in [["reconstruct", input.path, ""], ["diagnose", input.path, "--output", ""], ["match", input.path, ""]] {
            let outcome = try run(arguments, in: here)
            XCTAssertEqual(outcome.status, 2, "\(arguments)")
            let role = arguments[0] == "diagnose" ? "--output" : "OUTPUT"
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(role) is empty (\"\"): name a folder (. for the current one)"])
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: here.path), ["report.json"])
        XCTAssertEqual(try String(contentsOf: here.appendingPathComponent("report.json"), encoding: .utf8), "mine")
    }

    func testIntrinsicsMustBeFourFiniteNumbers() throws {
        let input = try captureFolder(good: 3)
        let output = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        let want = "; want fx,fy,cx,cy (four finite numbers, fx and fy above zero)"
        for (value, problem) in [("768,junk,768,320,240", "5 values"), ("768,inf,320,240", "fy \"inf\" is not a finite number"),
                                 ("nan,768,320,240", "fx \"nan\" is not a finite number"), ("768,768,junk,240", "cx \"junk\" is not a number")] {
            let outcome = try run(["reconstruct", input.path, output.path, "--intrinsics", value])
            XCTAssertEqual(outcome.status, 2, value)
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: --intrinsics \(value): \(problem)\(want)"])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "refused before anything is written")
    }

    func testBadPriorsAreOneLineNamingTheFile() throws {
        let input = try captureFolder(good: 3)
        let folder = try makeBridgeTestDirectory(self)
        let missing = try run(["reconstruct", input.path, folder.appendingPathComponent("out").path, "--priors", "/no/such.json"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.errorLines, ["photogrammetry: error: --priors /no/such.json: no such file (want a transforms.json, or none)"])
        let bad = folder.appendingPathComponent("transforms.json")
        try Data("{\"frames\": 3}".utf8).write(to: bad)
        let unreadable = try run(["reconstruct", input.path, folder.appendingPathComponent("out2").path, "--sparse-only", "--priors", bad.path])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertEqual(unreadable.errorLines, ["photogrammetry: error: \(bad.path): no \"frames\" array"])
        // The same file beside the images: named, with the way out.
        try FileManager.default.copyItem(at: bad, to: input.appendingPathComponent("transforms.json"))
        let beside = try run(["reconstruct", input.path, folder.appendingPathComponent("out3").path, "--sparse-only"])
        XCTAssertEqual(beside.status, 1)
        XCTAssertEqual(beside.errorLines.count, 1)
        XCTAssertTrue(beside.errorLines.first?.hasSuffix("transforms.json: no \"frames\" array; --priors none ignores it") == true,
                      "\(beside.errorLines)")
    }

    func testUnknownOptionsAndCommandsAreOneLine() throws {
        let unknown = try run(["reconstruct", "in", "out", "--bogus"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.errorLines, ["photogrammetry: error: unknown option --bogus"])
        let command = try run(["reconstrut", "in", "out"])
        XCTAssertEqual(command.status, 2)
        XCTAssertEqual(command.errorLines, ["photogrammetry: error: unknown command 'reconstrut'"])
    }

    // MARK: Output folders

    func testAnOutputThatIsAFileOrCannotBeWritten() throws {
        let input = try captureFolder(good: 3)
        let file = try makeBridgeTestDirectory(self).appendingPathComponent("notes.txt")
        try Data("keep".utf8).write(to: file)
        let outcome = try run(["reconstruct", input.path, file.path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: cannot write OUTPUT \(file.path): it is a file, not a folder"])
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep")
        // An OUTPUT that cannot be written: a folder the test makes read-only stops everyone but
        // root; a file standing where the run's folder work/ must go stops root too. (No system
        // folder such as /sys is relied on: a container may let root write there.)
        let folder = try makeBridgeTestDirectory(self)
        if geteuid() != 0 {
            let locked = folder.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
            chmod(locked.path, 0o500)
            defer { chmod(locked.path, 0o700) }
            let output = locked.appendingPathComponent("out")
            let refused = try run(["reconstruct", input.path, output.path])
            XCTAssertEqual(refused.status, 1)
            XCTAssertEqual(refused.errorLines, ["photogrammetry: error: cannot write OUTPUT \(output.path): permission denied"])
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked.path), [], "nothing written")
        }
        let output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: false)
        let work = output.appendingPathComponent("work")
        try Data("keep".utf8).write(to: work)
        let capture = try FileManager.default.contentsOfDirectory(atPath: input.path).sorted()
        let blocked = try run(["reconstruct", input.path, output.path])
        XCTAssertEqual(blocked.status, 1)
        XCTAssertEqual(blocked.errorLines, ["photogrammetry: error: cannot write OUTPUT \(output.path): \(work.path) is a file, not a folder"])
        XCTAssertEqual(try String(contentsOf: work, encoding: .utf8), "keep")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), ["work"], "nothing written in OUTPUT")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)),
                       geteuid() != 0 ? ["locked", "out"] : ["out"], "nothing written outside OUTPUT")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: input.path).sorted(), capture, "nor in INPUT")
    }

    /// `diagnose` without `--output` works in a private folder: a link planted in TMPDIR under the
    /// name the process id would have given is not followed, and nothing is left behind.
    func testDiagnoseWithoutOutputIgnoresAPlantedLink() throws {
        let input = try captureFolder(good: 2)
        try Data().write(to: input.appendingPathComponent("empty.jpg"))
        let temporary = try makeBridgeTestDirectory(self)
        let target = try makeBridgeTestDirectory(self)
        var link: URL?
        let outcome = try run(["diagnose", input.path], environment: ["TMPDIR": temporary.path]) { pid in
            let planted = temporary.appendingPathComponent("photogrammetry-diagnose-\(pid)")
            try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: target)
            link = planted
        }
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(input.path): 2 usable images, at least 3 needed; "
                                            + "rejected empty.jpg: empty file (0 bytes)"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [], "nothing written through the link")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary.path), [try XCTUnwrap(link).lastPathComponent],
                       "the private folder is gone")
    }

    // MARK: Images

    /// Every kind of unusable file at once, too few good images left: one line, the reasons in
    /// report.json, no hang on the pipe, and no libjpeg warning without a file name.
    func testUnusableImagesAreNamedInTheReportOfAFailedRun() throws {
        let input = try captureFolder(good: 2)
        try BadInputs.writeBlackFrame(to: input.appendingPathComponent("black.png"))
        try BadInputs.writeTinyImage(to: input.appendingPathComponent("tiny.png"))
        try Data().write(to: input.appendingPathComponent("empty.jpg"))
        try BadInputs.writeTruncatedJPEG(to: input.appendingPathComponent("cut.jpg"))
        try BadInputs.makeFIFO(at: input.appendingPathComponent("x.jpg"))
        try BadInputs.writeZip(input.appendingPathComponent("more.zip"), files: [])
        let output = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        let outcome = try run(["reconstruct", input.path, output.path], timeout: 60)
        XCTAssertEqual(outcome.status, 1)
        let report = output.appendingPathComponent("report.json")
        XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(input.path): 2 usable images, at least 3 needed; "
                                            + "6 rejected, reasons in \(report.path)"])
        let reasons = try rejectedReasons(report)
        XCTAssertEqual(Set(reasons.keys), ["black.png", "tiny.png", "empty.jpg", "cut.jpg", "x.jpg", "more.zip"])
        XCTAssertEqual(reasons["black.png"], "blank (no contrast: grey levels vary by 0.00 of 255)")
        XCTAssertEqual(reasons["tiny.png"], "too small (1x1 px, need at least 64 px on each side)")
        XCTAssertEqual(reasons["empty.jpg"], "empty file (0 bytes)")
        XCTAssertTrue(reasons["cut.jpg"]?.hasPrefix("truncated JPEG: ") == true, reasons["cut.jpg"] ?? "")
        XCTAssertEqual(reasons["x.jpg"], "not a regular file (a named pipe)")
        XCTAssertEqual(reasons["more.zip"], "zip inside the capture folder is not unpacked (unpack it beside the images)")
    }

    /// A zip whose entry name holds a line break, and a zip inside it: both named, the model
    /// written from the good images has two lines per image, and the JSON progress stays one
    /// object per line.
    func testAZipWithALineBreakInANameGivesAWholeModel() throws {
        let work = try makeBridgeTestDirectory(self)
        let good = ["templeR0013.png", "templeR0014.png", "templeR0015.png"]
        var files = good.map { ("capture/images/\($0)", BadInputs.goodImages.appendingPathComponent($0)) }
        files.append(("capture/images/evil\n1 0 0 0 0 0 0 0 1 x.png", BadInputs.goodImages.appendingPathComponent("templeR0016.png")))
        let inner = work.appendingPathComponent("inner.zip")
        try BadInputs.writeZip(inner, files: [("a.png", BadInputs.goodImages.appendingPathComponent("templeR0017.png"))])
        files.append(("capture/images/inner.zip", inner))
        let zip = work.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: files)
        let output = work.appendingPathComponent("out")
        let outcome = try run(["reconstruct", zip.path, output.path, "--sparse-only", "--progress", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let events = try outcome.standardOutput.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        XCTAssertTrue(events.contains { ($0["message"] as? String)?.hasPrefix("rejected evil\n1 0 0") == true })
        let reasons = try rejectedReasons(output.appendingPathComponent("report.json"))
        XCTAssertEqual(reasons["evil\n1 0 0 0 0 0 0 0 1 x.png"], "name holds a line break or other control character "
                       + "(evil\\n1 0 0 0 0 0 0 0 1 x.png), which a COLMAP text model cannot hold")
        XCTAssertEqual(reasons["inner.zip"], "zip inside a zip is not unpacked (unpack it into the outer zip's folder)")
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(Set(model.images.values.map(\.name)), Set(good))
        let lines = try String(contentsOf: output.appendingPathComponent("sparse/images.txt"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
        XCTAssertEqual(lines.count, 2 * 3 + 1, "two lines per image and the final newline")
    }

    func testAModelFileOutputPutsTheWorkingFilesBesideIt() throws {
        let input = try captureFolder(good: 3)
        let work = try makeBridgeTestDirectory(self)
        let file = work.appendingPathComponent("chair.USDZ")
        let outcome = try run(["reconstruct", input.path, file.path, "--sparse-only", "--progress", "none"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(file.path) not written: --sparse-only stops before "
                                            + "the mesh; the sparse model and report are in \(work.path)/chair"])
        let folder = work.appendingPathComponent("chair")
        for name in ["report.json", "report.html", "sparse/images.txt"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "no half-made model file")
    }

    func testAMalformedMaskFileBesideTheImagesIsAnError() throws {
        let input = try captureFolder(good: 3)
        let mask = input.appendingPathComponent("mask.json")
        try Data("{\"rect\": [0, 0".utf8).write(to: mask)
        let outcome = try run(["reconstruct", input.path, try makeBridgeTestDirectory(self).appendingPathComponent("out").path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(mask.path): not a JSON object "
                                            + "(want {\"rect\": {\"x\", \"y\", \"width\", \"height\"}}); --mask none ignores it"])
    }

    func testAZipBombIsRefusedInOneLineAndLeavesNothing() throws {
        let work = try makeBridgeTestDirectory(self)
        let zip = work.appendingPathComponent("bomb.zip")
        try BadInputs.writeZip(zip, files: [("a.png", BadInputs.goodImages.appendingPathComponent("templeR0013.png"))],
                               data: [("b.png", Data(count: 64 << 20))])
        let output = work.appendingPathComponent("out")
        let outcome = try run(["reconstruct", zip.path, output.path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines.count, 1)
        XCTAssertTrue(outcome.standardError.hasPrefix("photogrammetry: error: bomb.zip: entry \"b.png\" would inflate "),
                      outcome.standardError)
        XCTAssertTrue(outcome.standardError.hasSuffix(", a ratio over the cap of 200 (a zip bomb?)\n"), outcome.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("work/input").path))
    }
}
