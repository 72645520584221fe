import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// A camera of the top view: its centre and horizontal viewing direction in the diagnosis frame.
    private struct TopViewCamera {
        var name: String
        var x: Double
        var y: Double
        /// The viewing direction projected on the horizontal plane (shorter when looking down).
        var dx: Double
        var dy: Double
        var azimuth: Double?
        var elevation: Double?
    }

    /// Side of the square SVG canvas, in user units.
    private static let topViewSize = 400.0
    /// Half-width of the square the camera centres are fitted into.
    private static let topViewHalf = 150.0
    /// Length of a full horizontal viewing-direction line, in user units.
    private static let directionLength = 20.0

    /// The top view: registered cameras seen from above, the object centre and the azimuth axes.
    ///
    /// Looking down the "up" axis with x to the right and y up (azimuth 0 along +x, growing
    /// counter-clockwise, as the coverage dial), scaled to fit with equal aspect. Each camera is a
    /// dot coloured by elevation with a line along its horizontal viewing direction. Images
    /// without a `centerTop` are left out; with none at all the figure says so instead.
    static func topView(_ report: Report) -> String {
        let cameras = report.images.compactMap(topViewCamera)
        guard !cameras.isEmpty else {
            return "<figure class=\"plot\"><figcaption><strong>Top view.</strong> "
                + "<span class=\"empty\">No camera positions to show.</span></figcaption></figure>"
        }
        // The smallest square holding every centre and the origin, centred on the canvas.
        let xs = cameras.map(\.x) + [0], ys = cameras.map(\.y) + [0]
        let span = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!, 1e-9)
        let middleX = (xs.max()! + xs.min()!) / 2, middleY = (ys.max()! + ys.min()!) / 2
        let scale = 2 * topViewHalf / span
        let half = topViewSize / 2
        func point(_ x: Double, _ y: Double) -> (Double, Double) {
            (half + (x - middleX) * scale, half - (y - middleY) * scale)
        }
        let isObject = report.captureKind != "walkthrough"
        let (ox, oy) = point(0, 0)
        var svg = "<svg class=\"top-view\" viewBox=\"0 0 \(n(topViewSize)) \(n(topViewSize))\" role=\"img\" "
            + "aria-label=\"Top view of the cameras\" font-size=\"11\" fill=\"\(Palette.muted)\">\n"
        svg += "<rect x=\"0.5\" y=\"0.5\" width=\"\(n(topViewSize - 1))\" height=\"\(n(topViewSize - 1))\" "
            + "fill=\"#fbfcfd\" stroke=\"\(Palette.grid)\"/>\n"
        // The azimuth axes from the origin to the edge of the plot, 0° then 90°.
        let edge = half + topViewHalf + 22
        svg += "<g stroke=\"\(Palette.grid)\" stroke-dasharray=\"4 3\">"
            + "<line x1=\"\(n(ox))\" y1=\"\(n(oy))\" x2=\"\(n(edge))\" y2=\"\(n(oy))\"/>"
            + "<line x1=\"\(n(ox))\" y1=\"\(n(oy))\" x2=\"\(n(ox))\" y2=\"\(n(topViewSize - edge))\"/></g>\n"
        svg += "<text x=\"\(n(edge + 3))\" y=\"\(n(oy + 4))\">0°</text>"
            + "<text x=\"\(n(ox))\" y=\"\(n(topViewSize - edge - 5))\" text-anchor=\"middle\">90°</text>\n"
        if isObject {
            // A reference circle at the median camera distance, where gaps in the orbit show.
            let radii = cameras.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }.sorted()
            let median = radii[radii.count / 2] * scale
            if median > 1 {
                svg += "<circle cx=\"\(n(ox))\" cy=\"\(n(oy))\" r=\"\(n(median))\" fill=\"none\" "
                    + "stroke=\"\(Palette.grid)\"/>\n"
            }
        }
        svg += "<g stroke=\"#1f2328\" stroke-width=\"2\"><line x1=\"\(n(ox - 7))\" y1=\"\(n(oy))\" "
            + "x2=\"\(n(ox + 7))\" y2=\"\(n(oy))\"/><line x1=\"\(n(ox))\" y1=\"\(n(oy - 7))\" x2=\"\(n(ox))\" "
            + "y2=\"\(n(oy + 7))\"/></g><text x=\"\(n(ox + 6))\" y=\"\(n(oy + 16))\" fill=\"#1f2328\">"
            + "\(isObject ? "object centre" : "origin")</text>\n"
        let elevations = cameras.compactMap(\.elevation)
        let low = elevations.min() ?? 0, high = elevations.max() ?? 0
        for camera in cameras {
            let (px, py) = point(camera.x, camera.y)
            let colour = camera.elevation.map { elevationColour($0, low: low, high: high) } ?? Palette.muted
            var label = camera.name
            if let azimuth = camera.azimuth { label += " · azimuth \(ReportFormat.degrees(azimuth))" }
            if let elevation = camera.elevation { label += " · elevation \(ReportFormat.degrees(elevation))" }
            svg += "<g class=\"camera\"><title>\(escape(label))</title>"
            if camera.dx != 0 || camera.dy != 0 {
                svg += "<line x1=\"\(n(px))\" y1=\"\(n(py))\" x2=\"\(n(px + camera.dx * directionLength))\" "
                    + "y2=\"\(n(py - camera.dy * directionLength))\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>"
            }
            svg += "<circle cx=\"\(n(px))\" cy=\"\(n(py))\" r=\"4.5\" fill=\"\(colour)\" stroke=\"#fff\"/></g>\n"
        }
        if !elevations.isEmpty { svg += elevationLegend(low: low, high: high) }
        svg += "</svg>"
        let shown = cameras.count == 1 ? "1 camera" : "\(cameras.count) cameras"
        return """
            <figure class="plot">
            \(svg)
            <figcaption><strong>Top view</strong> looking down the up axis: \(shown) (dots, coloured by \
            elevation) and where each looks (lines); the cross is the \(isObject ? "object centre" : "origin"), \
            dashed lines point to azimuth 0° and 90°.\
            </figcaption>
            </figure>
            """
    }

    /// The camera of `image` when it has a finite 2-vector centre, else nil.
    private static func topViewCamera(_ image: ReportImage) -> TopViewCamera? {
        guard let centre = image.centerTop, centre.count == 2, centre.allSatisfy(\.isFinite) else { return nil }
        var dx = 0.0, dy = 0.0
        if let direction = image.directionTop, direction.count == 2, direction.allSatisfy(\.isFinite) {
            // Unit length at most: a camera looking steeply down draws a short line.
            let length = (direction[0] * direction[0] + direction[1] * direction[1]).squareRoot()
            if length > 1e-9 {
                let shrink = min(1, length) / length
                dx = direction[0] * shrink
                dy = direction[1] * shrink
            }
        }
        return TopViewCamera(
            name: image.name, x: centre[0], y: centre[1], dx: dx, dy: dy,
            azimuth: image.azimuthDeg.flatMap { $0.isFinite ? $0 : nil },
            elevation: image.elevationDeg.flatMap { $0.isFinite ? $0 : nil })
    }

    /// Hues from blue (lowest camera) through green to orange (highest); one hue when the
    /// cameras are within ``minimumColouredSpreadDeg`` of one height, whose differences would
    /// otherwise be painted as large as a real second ring's.
    private static func elevationColour(_ elevation: Double, low: Double, high: Double) -> String {
        let t = high - low >= minimumColouredSpreadDeg ? min(1, max(0, (elevation - low) / (high - low))) : 0.5
        return "hsl(\(Int((215 - 190 * t).rounded())), 70%, 45%)"
    }

    /// The smallest elevation spread the top view colours, degrees: below it the cameras are one
    /// ring (the header's spread reads 0° or 1°).
    static let minimumColouredSpreadDeg = 1.0

    /// The legend's labels: the lowest and highest elevation in whole degrees, or in tenths when
    /// whole degrees read the same ("7.6°", "8.4°"), or one label when the tenths do too ("all at 8°").
    static func elevationLabels(low: Double, high: Double) -> [String] {
        if ReportFormat.degrees(low) != ReportFormat.degrees(high) {
            return [ReportFormat.degrees(low), ReportFormat.degrees(high)]
        }
        let tenths = { (value: Double) in ReportFormat.fixed(value, 1) + "°" }
        if tenths(low) != tenths(high) { return [tenths(low), tenths(high)] }
        return ["all at " + ReportFormat.degrees((low + high) / 2)]
    }

    /// A gradient bar in the bottom-left corner labelled with the lowest and highest elevation
    /// (one colour and one label when they are the same).
    private static func elevationLegend(low: Double, high: Double) -> String {
        let stops = (0...4).map { step -> String in
            let t = Double(step) / 4
            return "<stop offset=\"\(step * 25)%\" stop-color=\"\(elevationColour(low + t * (high - low), low: low, high: high))\"/>"
        }.joined()
        let y = topViewSize - 22
        return "<defs><linearGradient id=\"elevation-scale\">\(stops)</linearGradient></defs>"
            + "<text x=\"12\" y=\"\(n(y - 5))\">elevation</text>"
            + "<rect x=\"12\" y=\"\(n(y))\" width=\"110\" height=\"8\" fill=\"url(#elevation-scale)\"/>"
            + elevationLabels(low: low, high: high).enumerated().map { index, label in
                index == 0 ? "<text x=\"12\" y=\"\(n(y + 19))\">\(label)</text>"
                           : "<text x=\"122\" y=\"\(n(y + 19))\" text-anchor=\"end\">\(label)</text>"
            }.joined() + "\n"
    }

    /// A coordinate for SVG: one decimal, no trailing ".0".
    static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}
