import Foundation

/// The kernel's "Name:   123 kB" lines, as `/proc/self/status` and `/proc/meminfo` write them.
public enum ProcFile {
    /// The number after `name` (without its colon) in the file at `path`, in kB as the kernel
    /// gives it; nil where the file or the line is not there.
    ///
    /// The kernel pads the number to eight places after a tab, so one of nine digits (a process
    /// of 100 GB of address space) follows the tab with no space: the line is split at both.
    public static func kilobytes(_ name: String, in path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
    }
}
