import Foundation
import PhotogrammetrySparse

/// The batch's captures as a plain-text table, one row each, for the terminal.
public enum BatchTable {
    /// The header's columns.
    static let header = ["capture", "status", "registered", "kind", "azimuth", "elevation", "seconds", "note"]

    /// What the note column says of a capture the run found finished.
    static let finishedBeforeNote = "reused: finished before with the same options"

    /// A header and one row per entry: capture, status, registered/total, capture kind, azimuth
    /// coverage, elevation spread, seconds, note (the error, or that it had finished before; the
    /// last column unpadded, on one line).
    /// - Parameter notes: text per capture name put before its error (the summary's flags).
    public static func text(_ entries: [BatchRecord.Entry], notes: [String: String] = [:]) -> String {
        let rows = entries.map { entry -> [String] in
            let registered = entry.imagesTotal.map { "\(entry.imagesRegistered ?? 0)/\($0)" } ?? "-"
            let error = [notes[entry.name], entry.finishedBefore ? finishedBeforeNote : nil, entry.error]
                .compactMap { $0 }.joined(separator: "; ")
            return [entry.name, entry.status, registered, entry.captureKind ?? "-",
                    entry.azimuthCoverageDeg.map(ReportFormat.degrees) ?? "-",
                    entry.elevationSpreadDeg.map(ReportFormat.degrees) ?? "-",
                    entry.seconds.map { ReportFormat.fixed($0, 1) } ?? "-", error.escapingControlCharacters]
        }
        let all = [header] + rows
        let widths = (0..<header.count - 1).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let padded = zip(row.dropLast(), widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
            return (padded + [row.last!]).joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// "5 ok (3 reused, finished before), 1 failed, 1 interrupted": how many of each status, in
    /// a fixed order, zeros left out; of the ok ones, how many the run found finished and reused.
    public static func counts(_ entries: [BatchRecord.Entry]) -> String {
        let order = ["ok", "failed", "interrupted", "running", "pending", "missing"]
        var tally: [String: Int] = [:]
        for entry in entries { tally[entry.status, default: 0] += 1 }
        let finishedBefore = entries.filter { $0.status == "ok" && $0.finishedBefore }.count
        let known = order.compactMap { status in
            tally[status].map { count in
                "\(count) \(status)" + (status == "ok" && finishedBefore > 0 ? " (\(finishedBefore) reused, finished before)" : "")
            }
        }
        let others = tally.keys.filter { !order.contains($0) }.sorted().map { "\(tally[$0]!) \($0)" }
        let parts = known + others
        return parts.isEmpty ? "no captures" : parts.joined(separator: ", ")
    }
}
