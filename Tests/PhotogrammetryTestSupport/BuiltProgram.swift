import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import PhotogrammetryCore
import PhotogrammetryBridge

/// The built `photogrammetry` executable, run as a user runs it (swift-argument-parser's own
/// tests run their binaries alike). Run after `swift build` (it sits beside the test bundle).
package enum BuiltProgram {
    /// What one run did.
    package struct Outcome {
        package var status: Int32
        package var standardOutput: String
        package var standardError: String
        /// Standard error's lines, without the final newline.
        package var errorLines: [String] { standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        /// Standard output's non-empty lines.
        package var outputLines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    /// The folder of the built products (`.build/release`), where the executable is.
    package static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #else
        return Bundle.main.bundleURL
        #endif
    }

    package static var executable: URL { productsDirectory.appendingPathComponent("photogrammetry") }

    /// Starts `executable` (the program unless given) with `arguments`; call ``Running/wait(timeout:)``.
    /// - Parameter environment: added to (and overriding) this process's environment; a value
    ///   of "" removes the variable.
    package static func start(_ arguments: [String], executable: URL? = nil, in directory: URL? = nil,
                      environment: [String: String] = [:], logs: URL) throws -> Running {
        let program = executable ?? Self.executable
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            throw CVisionError(code: .ioError, message: "no executable at \(program.path): swift build first")
        }
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let out = logs.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = logs.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        for (name, value) in environment where value.isEmpty { merged[name] = nil }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let running = Running(process: process, out: out, err: err)
        process.terminationHandler = { _ in running.done.signal() }
        try process.run()
        return running
    }

    /// A started run.
    package final class Running {
        package let process: Process
        package let out: URL, err: URL
        package let done = DispatchSemaphore(value: 0)

        package init(process: Process, out: URL, err: URL) {
            (self.process, self.out, self.err) = (process, out, err)
        }

        /// Waits for the end; a run that outlives `timeout` is killed and fails the test, so that
        /// a hang is a failure, not a stalled suite.
        package func wait(timeout: TimeInterval, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
            if done.wait(timeout: .now() + timeout) == .timedOut {
                process.terminate()
                done.wait()
                XCTFail("photogrammetry \(process.arguments?.joined(separator: " ") ?? "") still ran after \(Int(timeout)) s",
                        file: file, line: line)
            }
            return Outcome(status: process.terminationStatus,
                           standardOutput: try String(contentsOf: out, encoding: .utf8),
                           standardError: try String(contentsOf: err, encoding: .utf8))
        }
    }

    /// Runs the program with `arguments` as a child of this process and waits for it with
    /// `wait4`, which hands back the child's own peak memory (`ru_maxrss`): Foundation's Process
    /// reaps its children itself and keeps that figure. Returns the outcome and the peak in bytes;
    /// a run that outlives `timeout` is killed and fails the test.
    package static func runMeasuringMemory(_ arguments: [String], timeout: TimeInterval = 120, logs: URL,
                                   file: StaticString = #filePath, line: UInt = #line) throws -> (Outcome, Int) {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw CVisionError(code: .ioError, message: "no executable at \(executable.path): swift build first")
        }
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        let out = logs.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = logs.appendingPathComponent("stderr-\(UUID().uuidString)")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CVisionError(code: .ioError, message: "posix_spawn failed: \(spawned)") }
        var status: Int32 = 0
        var usage = rusage()
        let deadline = Date().addingTimeInterval(timeout)
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                XCTFail("photogrammetry \(arguments.joined(separator: " ")) still ran after \(Int(timeout)) s", file: file, line: line)
                break
            }
            usleep(50_000)
        }
        // Exited: the code in bits 8-15; killed by a signal: 128 + the signal, as a shell says it.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let outcome = Outcome(status: code, standardOutput: try String(contentsOf: out, encoding: .utf8),
                              standardError: try String(contentsOf: err, encoding: .utf8))
        return (outcome, Int(usage.ru_maxrss) * 1024)  // kilobytes on Linux
    }

    /// Runs the program with `arguments` and waits for it.
    package static func run(_ arguments: [String], executable: URL? = nil, in directory: URL? = nil,
                    environment: [String: String] = [:], timeout: TimeInterval = 120, logs: URL,
                    file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        try start(arguments, executable: executable, in: directory, environment: environment, logs: logs)
            .wait(timeout: timeout, file: file, line: line)
    }
}
