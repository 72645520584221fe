import Foundation
import PhotogrammetryKit
import PhotogrammetryCore

/// The process's peak resident memory (VmHWM in /proc/self/status), in bytes; nil where the
/// file does not exist.
enum PeakMemory {
    static var bytes: Int? { ProcFile.kilobytes("VmHWM", in: "/proc/self/status").map { $0 * 1024 } }

    /// "812 MB".
    static var text: String { bytes.map { "\($0 / 1_000_000) MB" } ?? "unknown" }
}
