import Foundation
import XCTest

/// report.html's 3D view checked in a real browser: `scripts/browser/viewer-check.py` drives
/// headless Chromium (WebGL through SwiftShader) over the DevTools protocol with real mouse
/// events. A missing Chromium or Pillow fails the test with the fix (scripts/setup installs them).
package enum BrowserCheck {
    /// Runs the viewer check on `report`, screenshots into `shots`; returns its figures (the
    /// script's JSON line), nil after recording the failure.
    package static func viewer(report: URL, shots: URL, file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.root.appendingPathComponent("scripts/browser/viewer-check.py").path,
                             report.path, shots.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch {
            XCTFail("python3 not found: run scripts/setup (\(error))", file: file, line: line)
            return nil
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("viewer check (\(process.terminationStatus)): \(errors.trimmingCharacters(in: .whitespacesAndNewlines))",
                    file: file, line: line)
            return nil
        }
        guard let figures = try? JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            XCTFail("viewer check printed no figures: \(String(decoding: output, as: UTF8.self))", file: file, line: line)
            return nil
        }
        return figures
    }
}
