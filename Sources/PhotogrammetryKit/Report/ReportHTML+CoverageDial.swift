import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// Radius of the dial's central hole, the ring boundary and the outer edge, in user units.
    private static let dialRadii = (hole: 45.0, middle: 100.0, outer: 150.0)

    /// The coverage dial: 16 azimuth sectors by 2 elevation rings, shaded by camera count.
    ///
    /// Seen from above like the top view (azimuth 0 to the right, growing counter-clockwise), so
    /// the upper ring (cameras at or above ``ReportImage/upperRingElevationDeg``) is the inner
    /// ring, nearer the up axis, and the lower ring the outer one. A covered cell is green, darker
    /// with more cameras, and shows its count; an empty cell is pale red with a red outline. Without
    /// `coverageSectors` (walkthroughs) the figure says why instead.
    static func coverageDial(_ report: Report) -> String {
        guard let cells = report.coverageSectors, !cells.isEmpty else {
            let why = report.angularMeasuresNote ?? "no coverage was computed for this capture"
            return "<figure class=\"plot\"><figcaption><strong>Coverage dial.</strong> "
                + "<span class=\"empty\">Not reported: \(escape(why))</span></figcaption></figure>"
        }
        let ringCount = 2, sectorCount = 16
        func count(_ ring: Int, _ sector: Int) -> Int {
            ring < cells.count && sector < cells[ring].count ? max(0, cells[ring][sector]) : 0
        }
        let most = max(1, (0..<ringCount).flatMap { ring in (0..<sectorCount).map { count(ring, $0) } }.max() ?? 1)
        let threshold = ReportFormat.degrees(ReportImage.upperRingElevationDeg)
        let bands = [(name: "below \(threshold)", inner: dialRadii.middle, outer: dialRadii.outer),
                     (name: "\(threshold) and above", inner: dialRadii.hole, outer: dialRadii.middle)]
        var covered = "", empty = "", labels = ""
        var missing = [0, 0]
        for ring in 0..<ringCount {
            let band = bands[ring]
            for sector in 0..<sectorCount {
                let from = Double(sector) * 360 / Double(sectorCount), to = from + 360 / Double(sectorCount)
                let cameras = count(ring, sector)
                let path = sectorPath(from: from, to: to, inner: band.inner, outer: band.outer)
                let title = "<title>azimuth \(n(from))–\(n(to))°, \(band.name): "
                    + "\(cameras) camera\(cameras == 1 ? "" : "s")</title>"
                if cameras == 0 {
                    missing[ring] += 1
                    empty += "<path class=\"sector empty\" d=\"\(path)\" fill=\"#ffebe9\" stroke=\"\(Palette.poor)\" "
                        + "stroke-width=\"1.5\">\(title)</path>\n"
                } else {
                    let opacity = 0.3 + 0.7 * Double(cameras) / Double(most)
                    covered += "<path class=\"sector\" d=\"\(path)\" fill=\"\(Palette.covered)\" "
                        + "fill-opacity=\"\(ReportFormat.fixed(opacity, 2))\" stroke=\"#fff\">\(title)</path>\n"
                    let (x, y) = dialPoint((band.inner + band.outer) / 2, (from + to) / 2)
                    labels += "<text x=\"\(n(x))\" y=\"\(n(y + 4))\">\(cameras)</text>"
                }
            }
        }
        var svg = "<svg class=\"coverage-dial\" viewBox=\"0 0 400 400\" role=\"img\" "
            + "aria-label=\"Coverage dial\" font-size=\"11\" fill=\"\(Palette.muted)\">\n"
        svg += covered + empty  // empty cells last, so their red outlines stay whole
        svg += "<g text-anchor=\"middle\" fill=\"#1f2328\">\(labels)</g>\n"
        for azimuth in stride(from: 0, to: 360, by: 90) {
            let (x, y) = dialPoint(dialRadii.outer + 16, Double(azimuth))
            svg += "<text x=\"\(n(x))\" y=\"\(n(y + 4))\" text-anchor=\"middle\">\(azimuth)°</text>"
        }
        svg += "\n<text x=\"200\" y=\"204\" text-anchor=\"middle\">up</text>\n</svg>"
        let total = missing.reduce(0, +)
        let summary = total == 0
            ? "no sector missing"
            : "<strong>\(total) of \(ringCount * sectorCount) sectors missing</strong> (\(missing[0]) of "
                + "\(sectorCount) in the lower ring, \(missing[1]) of \(sectorCount) in the upper ring)"
        return """
            <figure class="plot">
            \(svg)
            <figcaption><strong>Coverage dial</strong>, 16 azimuth sectors of 22.5°: outer ring below \
            \(threshold) elevation, inner ring \(threshold) and above; shade = registered cameras, red \
            outline = none. \(summary).</figcaption>
            </figure>
            """
    }

    /// The SVG point at `radius` and `azimuth` degrees around the dial centre (200, 200), y up.
    private static func dialPoint(_ radius: Double, _ azimuth: Double) -> (Double, Double) {
        let angle = azimuth * .pi / 180
        return (200 + radius * cos(angle), 200 - radius * sin(angle))
    }

    /// An annular sector from azimuth `from` to `to` (counter-clockwise) between two radii.
    private static func sectorPath(from: Double, to: Double, inner: Double, outer: Double) -> String {
        let (x1, y1) = dialPoint(outer, from), (x2, y2) = dialPoint(outer, to)
        let (x3, y3) = dialPoint(inner, to), (x4, y4) = dialPoint(inner, from)
        // Counter-clockwise on screen (y down) is SVG's sweep flag 0.
        return "M\(n(x1)) \(n(y1))A\(n(outer)) \(n(outer)) 0 0 0 \(n(x2)) \(n(y2))"
            + "L\(n(x3)) \(n(y3))A\(n(inner)) \(n(inner)) 0 0 1 \(n(x4)) \(n(y4))Z"
    }
}
