import Foundation

/// The process's peak resident memory (VmHWM in /proc/self/status), in bytes; nil where the
/// file does not exist.
enum PeakMemory {
    static var bytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2, let kilobytes = Int(words[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// "812 MB".
    static var text: String { bytes.map { "\($0 / 1_000_000) MB" } ?? "unknown" }
}
