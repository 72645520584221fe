import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
#elseif canImport(Darwin)
import Darwin
#endif

/// One capture of a batch run as a child process: `photogrammetry reconstruct INPUT OUTPUT
/// [options]`, the same command and code path a user runs.
///
/// A child, not a call in this process, because a capture can end a process: a glog CHECK or
/// Ceres' abort on a degenerate problem, a crash in a decoder on a hostile file, the kernel's OOM
/// killer on a huge capture. Then that capture fails and the batch goes on; and each capture's
/// memory (caches, OpenCV's pools) goes back to the system when its child ends.
public enum CaptureProcess {
    /// How a child ended.
    public struct Outcome: Sendable, Equatable {
        /// Exit code, or the signal that ended it.
        public var exitCode: Int32?
        public var signal: Int32?
        /// The child's last `photogrammetry: error: ...` line, without the prefix.
        public var errorLine: String?
        /// Its last line of standard error, whatever it was (a crash's message).
        public var lastLine: String?
        /// The signal its `photogrammetry: interrupted by SIGTERM` line names ("SIGTERM"), when
        /// a signal stopped it and it said so.
        public var interruption: String?

        /// Whether the capture reconstructed.
        public var succeeded: Bool { exitCode == 0 }

        /// One line on why it failed, nil when it did not.
        public var failure: String? {
            if succeeded { return nil }
            if let interruption { return "interrupted by \(interruption)" }
            if let signal {
                let name = signalName(signal)
                return "crashed (signal \(signal)\(name.map { ", \($0)" } ?? ""))" + (lastLine.map { ": \($0)" } ?? "")
            }
            return errorLine ?? lastLine.map { "exit code \(exitCode ?? -1): \($0)" } ?? "exit code \(exitCode ?? -1)"
        }
    }

    /// Runs `executable` with `arguments` and waits.
    /// - Parameters:
    ///   - standardOutputLine: each line the child writes to standard output (JSON progress), or nil to drop them.
    ///   - forwardStandardError: copy the child's standard error to ours as it comes (its terminal
    ///     progress line), besides keeping its last lines.
    ///   - started: called with the child's process id once it runs (to signal it), and with nil
    ///     once it has ended, before this returns.
    public static func run(executable: URL, arguments: [String], standardOutputLine: ((String) -> Void)?,
                           forwardStandardError: Bool, started: ((Int32?) -> Void)? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = standardOutputLine == nil ? FileHandle.nullDevice : out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw PipelineError.io("cannot start \(executable.path): \(error.localizedDescription)")
        }
        started?(process.processIdentifier)
        // Both pipes are drained at once, or a child filling one would block forever.
        let group = DispatchGroup()
        let tail = TailBuffer()
        DispatchQueue.global().async(group: group) {
            let handle = err.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                if forwardStandardError { FileHandle.standardError.write(withoutErrorLines(chunk)) }
                tail.append(chunk)
            }
        }
        if let standardOutputLine {
            DispatchQueue.global().async(group: group) {
                let handle = out.fileHandleForReading
                var pending = Data()
                while case let chunk = handle.availableData, !chunk.isEmpty {
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        standardOutputLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                if !pending.isEmpty { standardOutputLine(String(decoding: pending, as: UTF8.self)) }
            }
        }
        process.waitUntilExit()
        started?(nil)
        group.wait()
        var outcome = Outcome()
        if process.terminationReason == .uncaughtSignal {
            outcome.signal = process.terminationStatus
        } else {
            outcome.exitCode = process.terminationStatus
        }
        let lines = tail.lines
        let prefix = "photogrammetry: error: "
        outcome.errorLine = lines.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        outcome.lastLine = lines.last
        let interrupted = "photogrammetry: interrupted by "
        outcome.interruption = lines.last { $0.hasPrefix(interrupted) }.map {
            String($0.dropFirst(interrupted.count).prefix { $0 != ";" })
        }
        return outcome
    }

    /// `chunk` without the child's closing line, `photogrammetry: error: ...` or `photogrammetry:
    /// interrupted by ...`, which the batch reports itself (as the capture's failure, or in its
    /// own interruption line): on the terminal it would be said twice. The child writes that
    /// line in one write, so it does not straddle chunks.
    static func withoutErrorLines(_ chunk: Data) -> Data {
        var text = String(decoding: chunk, as: UTF8.self)
        while let start = text.range(of: "photogrammetry: error: ") ?? text.range(of: "photogrammetry: interrupted by ") {
            let end = text[start.upperBound...].firstIndex(of: "\n").map { text.index(after: $0) } ?? text.endIndex
            text.removeSubrange(start.lowerBound..<end)
        }
        return Data(text.utf8)
    }

    /// "SIGSEGV" for 11, ...
    static func signalName(_ signal: Int32) -> String? {
        [SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGKILL: "SIGKILL", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
         SIGILL: "SIGILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT"][signal]
    }
}

/// The last 64 KiB a child wrote to standard error, as lines without terminal redraws.
fileprivate final class TailBuffer: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    private let limit = 64 << 10

    func append(_ chunk: Data) {
        lock.lock()
        data.append(chunk)
        if data.count > limit { data.removeFirst(data.count - limit) }
        lock.unlock()
    }

    /// Non-empty lines; a progress line's carriage returns and erase codes left out, so that
    /// only what was last drawn on a line is kept.
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            let drawn = line.split(separator: "\r").last.map(String.init) ?? ""
            let text = drawn.replacingOccurrences(of: "\u{1B}[2K", with: "").trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
    }
}
