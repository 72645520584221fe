import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How much memory the run can still take, checked before the steps whose need is known from
/// the sizes at hand (Poisson from the cloud and depth, texturing from the pages and views).
///
/// A library that runs out inside its own threads cannot report it: Open3D's Poisson aborts the
/// process (a 300-line backtrace, exit 134), a thread that cannot start says "Resource
/// temporarily unavailable". Checked beforehand, the same want is one line that names the step,
/// what it needs, what there is, and what to change.
public enum MemoryBudget {
    /// What to change when memory is short, as every such message ends.
    public static let advice = "try a lower --detail (fewer pixels, points and triangles) or fewer --threads"

    /// Bytes the process can still allocate: the least of the system's available memory
    /// (`MemAvailable`), its cgroup's limit less its use, and its address-space limit
    /// (`ulimit -v`) less its size; nil when none is known.
    public static func availableBytes() -> Int? {
        var limits: [Int] = []
        if let available = ProcFile.kilobytes("MemAvailable", in: "/proc/meminfo") {
            limits.append(available * 1024)
        }
        if let limit = number(at: "/sys/fs/cgroup/memory.max"), let used = number(at: "/sys/fs/cgroup/memory.current") {
            limits.append(max(0, limit - used))
        }
        var addressSpace = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &addressSpace) == 0, addressSpace.rlim_cur != rlim_t.max,
           let size = ProcFile.kilobytes("VmSize", in: "/proc/self/status") {
            limits.append(max(0, Int(clamping: addressSpace.rlim_cur) - size * 1024))
        }
        return limits.min()
    }

    /// Throws when `bytes` is more than the process can still allocate.
    /// - Parameters:
    ///   - what: the step and its sizes ("Poisson at depth 11 over 2,400,000 points").
    /// - Throws: ``PipelineError/exhausted(_:)``: `WHAT needs about N MB, M MB available: try ...`.
    public static func check(needs bytes: Int, for what: String) throws {
        guard let available = availableBytes(), bytes > available else { return }
        throw PipelineError.exhausted("\(what) needs about \(megabytes(bytes)) MB, \(megabytes(available)) MB "
                                      + "available: \(advice)")
    }

    /// The error a stage that ran out of memory ends with: which stage, its peak, what to change.
    public static func outOfMemory(in stage: String, _ error: Error) -> PipelineError {
        let peak = PeakMemory.megabytes().map { "; peak \(Int($0)) MB" } ?? ""
        return .exhausted("\(stage) ran out of memory (\(error)\(peak)): \(advice)")
    }

    package static func megabytes(_ bytes: Int) -> Int { (bytes + (1 << 19)) >> 20 }

    /// The integer a cgroup file holds; nil for "max" or a missing file.
    package static func number(at path: String) -> Int? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
