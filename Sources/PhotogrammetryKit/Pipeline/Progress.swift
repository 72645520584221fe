import Foundation

/// How progress is shown: a redrawn line on a terminal, JSON lines for scripts, or nothing.
public enum ProgressMode: String, Sendable {
    case tty, json, none
}

/// Receives progress from the pipeline's stages; return false from `update` to cancel.
public protocol ProgressSink: AnyObject {
    /// A stage has done `done` of `total` units of work.
    func update(stage: String, done: Int, total: Int) -> Bool
    /// A stage finished after `seconds`.
    func finished(stage: String, seconds: Double)
    /// A notice for the user (a rejected image, a fallback taken).
    func note(_ message: String)
}

/// Prints progress to standard error (tty) or standard output (JSON lines).
public final class ProgressPrinter: ProgressSink {
    public let mode: ProgressMode
    private let lock = NSLock()
    private var lastPercent: [String: Int] = [:]

    public init(mode: ProgressMode) { self.mode = mode }

    public func update(stage: String, done: Int, total: Int) -> Bool {
        let percent = total > 0 ? done * 100 / total : 100
        lock.lock()
        defer { lock.unlock() }
        // Throttle: one line per percent step, so a 10,000-pair stage prints at most 101 lines.
        if lastPercent[stage] == percent && done != total { return true }
        lastPercent[stage] = percent
        switch mode {
        case .tty:
            let line = String(format: "\r\u{1B}[2K%@  %d/%d  %3d%%", stage, done, total, percent)
            FileHandle.standardError.write(Data(line.utf8))
        case .json:
            print(#"{"event":"progress","stage":"\#(stage)","done":\#(done),"total":\#(total),"percent":\#(percent)}"#)
            fflush(stdout)
        case .none: break
        }
        return true
    }

    public func finished(stage: String, seconds: Double) {
        lock.lock()
        defer { lock.unlock() }
        switch mode {
        case .tty:
            let line = String(format: "\r\u{1B}[2K%@  done in %.1f s\n", stage, seconds)
            FileHandle.standardError.write(Data(line.utf8))
        case .json:
            print(String(format: #"{"event":"stage","stage":"%@","seconds":%.3f}"#, stage, seconds))
            fflush(stdout)
        case .none: break
        }
    }

    public func note(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        switch mode {
        case .tty: FileHandle.standardError.write(Data("\r\u{1B}[2K\(message)\n".utf8))
        case .json:
            let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            print(#"{"event":"note","message":"\#(escaped)"}"#)
            fflush(stdout)
        case .none: break
        }
    }
}
