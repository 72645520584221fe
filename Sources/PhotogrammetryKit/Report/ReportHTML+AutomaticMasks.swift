import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// The automatic masks: whether they were made and why, with a few frames showing them (the
    /// background dimmed). Empty when segmentation did not run or had nothing to say (the run's
    /// own masks, or turned off).
    static func automaticMasksSection(_ report: Report, _ thumbnails: [(name: String, jpeg: Data)]) -> String {
        guard let masks = report.automaticMasks, masks.used || masks.stableShare != nil else { return "" }
        let headline = masks.rejectedByPoseCheck == true && !masks.used ? "Masks made from the frames' own still background, set aside"
            : masks.used ? "Masks made from the frames' own still background" : "No automatic masks"
        var facts = "<p>\(escape(headline)): \(escape(masks.reason))."
        if let share = masks.meanObjectShare {
            facts += " The object keeps \(ReportFormat.fixed(100 * share, 0)) % of a frame on average"
            if let core = masks.coreShare, core > 0 {
                facts += ", \(ReportFormat.fixed(100 * core, 1)) % of it in every frame (enclosed by what moved)"
            }
            facts += "; the masks are in \(escape(masks.folder ?? "masks"))/."
        }
        facts += "</p>"
        let figures = thumbnails.map {
            "<figure><img src=\"data:image/jpeg;base64,\($0.jpeg.base64EncodedString())\" alt=\"\(escape("mask of " + $0.name))\">"
                + "<figcaption>\(escape($0.name))</figcaption></figure>"
        }
        return """
            <section class="automatic-masks"><h2>Automatic masks</h2>
            \(facts)
            <div class="renders">\(figures.joined())</div>
            </section>
            """
    }
}
