import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// The per-image table: preview, name, status, reason, features, blur, viewing angles and the
    /// pose check's confidence (its reasons as the cell's tooltip).
    ///
    /// One row per ``Report/images`` entry in capture order (or, for a report without them, one per
    /// rejected and unregistered image). Statuses are colour-coded; a blur score below
    /// ``Report/blurFloor`` is highlighted.
    static func imageTable(_ report: Report, thumbnails: [String: Data]) -> String {
        let images = report.images.isEmpty ? fallbackImages(report) : report.images
        guard !images.isEmpty else { return "" }
        let rows = images.map { row($0, thumbnail: thumbnails[$0.name], blurFloor: report.blurFloor) }
            .joined(separator: "\n")
        var tally: [String: Int] = [:]
        for image in images { tally[image.status, default: 0] += 1 }
        let counts = ["registered", "unregistered", "rejected"].compactMap { status in
            tally[status].map { "\($0) \(status)" }
        }.joined(separator: ", ")
        let floor = report.blurFloor.map { blurRule(floor: $0, fraction: report.blurFloorFraction) } ?? ""
        return """
            <section class="images"><h2>Images</h2>
            <p>\(images.count) image\(images.count == 1 ? "" : "s"): \(escape(counts)).\(floor)</p>
            <div class="scroll"><table>
            <thead><tr><th>Preview</th><th>Image</th><th>Status</th><th>Reason</th><th class="num">Features</th>\
            <th class="num">Blur</th><th class="num">Azimuth</th><th class="num">Elevation</th><th class="num">Confidence</th></tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table></div>
            </section>
            """
    }

    /// One image's row.
    private static func row(_ image: ReportImage, thumbnail: Data?, blurFloor: Double?) -> String {
        let known = ["registered", "unregistered", "rejected"].contains(image.status)
        let preview = thumbnail.map {
            "<img src=\"data:image/jpeg;base64,\($0.base64EncodedString())\" alt=\"\(escape(image.name))\">"
        } ?? "–"
        var blur = "<td class=\"num\">–</td>"
        if let score = image.blurScore {
            if let blurFloor, score < blurFloor {
                blur = "<td class=\"num low\" title=\"below the blur floor \(escape(blurText(blurFloor)))\">"
                    + "\(escape(blurText(score)))</td>"
            } else {
                blur = "<td class=\"num\">\(escape(blurText(score)))</td>"
            }
        }
        let cells = [
            "<td class=\"thumb\">\(preview)</td>",
            "<td class=\"name\">\(escape(image.name))</td>",
            "<td><span class=\"badge\">\(escape(image.status))</span></td>",
            "<td>\(escape(image.reason ?? ""))</td>",
            "<td class=\"num\">\(image.features.map { ReportFormat.count($0) } ?? "–")</td>",
            blur,
            "<td class=\"num\">\(image.azimuthDeg.map(ReportFormat.degrees) ?? "–")</td>",
            "<td class=\"num\">\(image.elevationDeg.map(ReportFormat.degrees) ?? "–")</td>",
            confidenceCell(image),
        ]
        return "<tr class=\"image st-\(known ? image.status : "other")\">" + cells.joined() + "</tr>"
    }

    /// Rows for a report that lists only its rejected and unregistered images.
    private static func fallbackImages(_ report: Report) -> [ReportImage] {
        report.rejectedImages.map { ReportImage(name: $0.name, status: "rejected", reason: $0.reason) }
            + report.unregisteredImages.map { ReportImage(name: $0, status: "unregistered") }
    }

    /// The one rule that rejected blurred frames, a fraction of the capture's median score, with
    /// the numbers it gave here; a report without the fraction (an older one) gives the floor alone.
    static func blurRule(floor: Double, fraction: Double?) -> String {
        guard let fraction, fraction > 0 else { return " Frames with a blur score below \(escape(blurText(floor))) were rejected." }
        let share = String(format: "%g", fraction)
        return " Frames with a blur score below \(share) × the capture's median were rejected as blurred "
            + "(\(share) × \(escape(blurText(floor / fraction))) = \(escape(blurText(floor))))."
    }

    /// A blur score with three significant digits.
    private static func blurText(_ score: Double) -> String {
        score.isFinite ? String(format: "%.3g", score) : "–"
    }
}
