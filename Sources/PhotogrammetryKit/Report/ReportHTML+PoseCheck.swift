import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// The pose check: its verdict line with the evidence and the fix, and a table of every check
    /// with its figure against its threshold. Empty without a check.
    static func poseCheckSection(_ report: Report) -> String {
        guard let check = report.poseCheck else { return "" }
        let verdict = check.passed
            ? "<p class=\"posecheck ok\">Poses pass every check that needs no ground truth.</p>"
            : "<p class=\"posecheck fail\"><strong>Poses unreliable:</strong> \(escape(check.reason ?? "the pose check failed"))."
                + (check.fix.map { " <strong>Fix:</strong> \(escape($0))" } ?? "") + "</p>"
        let rows = check.checks.map { entry in
            let state = !entry.applies ? "n/a" : entry.passed ? "passed" : "failed"
            let figure = entry.figure.map { ReportFormat.fixed($0, $0 == $0.rounded() ? 0 : 3) } ?? "–"
            let threshold = entry.threshold.map { ReportFormat.fixed($0, $0 == $0.rounded() ? 0 : 3) } ?? "–"
            return "<tr class=\"check \(entry.passed ? "ok" : "fail")\"><td>\(escape(entry.name.replacingOccurrences(of: "_", with: " ")))</td>"
                + "<td>\(state)</td><td class=\"num\">\(escape(figure))</td><td class=\"num\">\(escape(threshold))</td>"
                + "<td>\(escape(entry.unit))</td><td>\(escape(entry.evidence))</td></tr>"
        }.joined(separator: "\n")
        return """
            <section class="posecheck"><h2>Pose check</h2>
            \(verdict)
            <div class="scroll"><table>
            <thead><tr><th>Check</th><th>Result</th><th class="num">Figure</th><th class="num">Threshold</th><th>Unit</th>\
            <th>Evidence</th></tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table></div>
            </section>
            """
    }

    /// An image's confidence cell: the value, highlighted below 0.5 (a check failed there), with
    /// the reasons as its tooltip.
    static func confidenceCell(_ image: ReportImage) -> String {
        guard let confidence = image.confidence else { return "<td class=\"num\">–</td>" }
        let reasons = (image.confidenceReasons ?? []).joined(separator: "; ")
        let title = reasons.isEmpty ? "" : " title=\"\(escape(reasons))\""
        return "<td class=\"num\(confidence < 0.5 ? " low" : "")\"\(title)>\(ReportFormat.fixed(confidence, 2))</td>"
    }
}
