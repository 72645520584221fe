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

    /// `text` as the inside of a JSON string: quotes, backslashes and control characters escaped.
    static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    out += String(format: "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

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
        // A note may quote a file name with a line break in it: it stays one line (one JSON line).
        switch mode {
        case .tty: FileHandle.standardError.write(Data("\r\u{1B}[2K\(message.escapingControlCharacters)\n".utf8))
        case .json:
            print(#"{"event":"note","message":"\#(Self.jsonEscaped(message))"}"#)
            fflush(stdout)
        case .none: break
        }
    }
}
