import Foundation

/// The process's peak resident memory (`VmHWM`), and its reset, for each stage's figure.
///
/// Linux resets the peak when "5" is written to `/proc/self/clear_refs`; where that is refused
/// (an old kernel, a sandbox) the figure a stage reports is the process's peak so far.
public enum PeakMemory {
    /// Starts a new peak at the current resident size; false when the kernel refused.
    @discardableResult
    public static func reset() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The peak resident memory since the last reset, in MiB; nil where /proc is not there.
    public static func megabytes() -> Double? {
        ProcFile.kilobytes("VmHWM", in: "/proc/self/status").map { (Double($0) / 1024 * 10).rounded() / 10 }
    }
}
