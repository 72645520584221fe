import Foundation
import PhotogrammetryCore

/// Two points of the scene and the metres between them (`--known-distance`): the centres of two
/// printed markers, or two points each picked in two or more photos.
///
/// As typed: `3,7=0.5` (markers 3 and 7, centre to centre, 0.5 m; their dictionary is the run's,
/// from `--markers` or `markers.json`), or
/// `IMG_1.jpg@412,300+IMG_2.jpg@380,310/IMG_1.jpg@600,305+IMG_2.jpg@590,320=0.25`: a point is
/// `IMAGE@X,Y` in each photo that shows it, joined by `+`, and the two points are separated by
/// `/`. X and Y are the pixel's column and row as an image viewer shows them (from 0 at the
/// top-left pixel, right and down, in the upright photo; fractions allowed). The shape reads as
/// "in IMAGE at X,Y"; it needs no other quoting than the shell's, and an image name may itself
/// hold `/` (a subfolder), `+` or `@`: a view ends only where `@X,Y` is followed by `+`, `/` or
/// `=`.
public struct KnownDistance: Sendable, Equatable, Codable {
    /// One of the two points.
    public enum Endpoint: Sendable, Equatable, Codable {
        /// The centre of a printed marker (the mean of its four triangulated corners).
        case marker(Int)
        /// A point picked in two or more photos: image names and pixels (top-left corner of the
        /// image at 0, 0, so a viewer's pixel x is x + 0.5 here).
        case picked([PickedView])
    }

    /// A point's pixel in one photo.
    public struct PickedView: Sendable, Equatable, Codable {
        /// The image's name as the capture has it (relative to the image folder).
        public var image: String
        /// In image pixels, the top-left corner of the image at 0, 0.
        public var pixel: SIMD2<Double>
    }

    public var from: Endpoint
    public var to: Endpoint
    /// The distance between them, metres.
    public var metres: Double

    public init(from: Endpoint, to: Endpoint, metres: Double) {
        (self.from, self.to, self.metres) = (from, to, metres)
    }

    /// Parses the text `--known-distance` takes.
    /// - Throws: ``MarkerSpec/Invalid`` saying what is wrong.
    public init(parsing text: String) throws {
        guard let equals = text.lastIndex(of: "=") else { throw MarkerSpec.Invalid(description: "no \"=METRES\"") }
        let metresText = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard let metres = Double(metresText), metres.isFinite, metres > 0 else {
            throw MarkerSpec.Invalid(description: "distance \"\(metresText)\" is not a number of metres above 0")
        }
        let points = String(text[..<equals])
        if let ids = Self.markerPair(points) {
            self.init(from: .marker(ids.0), to: .marker(ids.1), metres: metres)
            return
        }
        let endpoints = try Self.pickedPoints(points)
        self.init(from: .picked(endpoints.0), to: .picked(endpoints.1), metres: metres)
    }

    /// `ID,ID`, when the text is that.
    static func markerPair(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]) else { return nil }
        return (a, b)
    }

    /// `VIEW+VIEW.../VIEW+VIEW...`: the views of each point, in order.
    static func pickedPoints(_ text: String) throws -> ([PickedView], [PickedView]) {
        let want = "want ID,ID=METRES or IMAGE@X,Y+IMAGE@X,Y/IMAGE@X,Y+IMAGE@X,Y=METRES"
        // A view: a name (lazily, so that it ends at the first "@X,Y" that a separator or the end follows).
        let number = #"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"#
        let view = try NSRegularExpression(pattern: #"\G(.+?)@\s*("# + number + #")\s*,\s*("# + number + #")\s*([+/]|$)"#)
        var points: [[PickedView]] = [[]]
        var location = 0
        let ns = text as NSString
        while location < ns.length {
            guard let match = view.firstMatch(in: text, range: NSRange(location: location, length: ns.length - location)) else {
                throw MarkerSpec.Invalid(description: "cannot read a view at \"\(ns.substring(from: location))\": \(want)")
            }
            let name = ns.substring(with: match.range(at: 1)).trimmingCharacters(in: .whitespaces)
            guard let x = Double(ns.substring(with: match.range(at: 2))), let y = Double(ns.substring(with: match.range(at: 3))),
                  x.isFinite, y.isFinite, x >= 0, y >= 0 else {
                throw MarkerSpec.Invalid(description: "\(name): pixel is not two numbers of at least 0")
            }
            // A viewer's pixel (column, row) has its centre half a pixel in from its top-left corner.
            points[points.count - 1].append(PickedView(image: name, pixel: SIMD2(x + 0.5, y + 0.5)))
            if ns.substring(with: match.range(at: 4)) == "/" {
                guard points.count == 1 else { throw MarkerSpec.Invalid(description: "more than two points: \(want)") }
                points.append([])
            }
            location = match.range.upperBound
        }
        guard points.count == 2, !points[1].isEmpty else { throw MarkerSpec.Invalid(description: "two points needed: \(want)") }
        for (n, views) in points.enumerated() {
            guard Set(views.map(\.image)).count >= 2 else {
                throw MarkerSpec.Invalid(description: "point \(n + 1) is given in \(Set(views.map(\.image)).count) image(s); "
                                         + "a point needs two or more images")
            }
            guard Set(views.map(\.image)).count == views.count else {
                throw MarkerSpec.Invalid(description: "point \(n + 1) names an image twice")
            }
        }
        return (points[0], points[1])
    }

    /// The marker ids the distance names (none for picked points).
    public var markerIDs: [Int] {
        [from, to].compactMap { if case .marker(let id) = $0 { id } else { nil } }
    }

    /// One line for the log: "markers 3 and 7, 0.5 m".
    public var summary: String {
        func describe(_ endpoint: Endpoint) -> String {
            switch endpoint {
            case .marker(let id): "marker \(id)"
            case .picked(let views): "a point in \(views.count) images"
            }
        }
        return "\(describe(from)) to \(describe(to)), " + String(format: "%g m", metres)
    }
}

/// A scale the user states: a factor, or a distance it follows from.
public enum UserScale: Sendable, Equatable, Codable {
    /// Metres per model unit (`--scale`): the model is multiplied by it.
    case factor(Double)
    /// Two points and the metres between them (`--known-distance`).
    case knownDistance(KnownDistance)

    /// The known distance, when this is one.
    public var knownDistance: KnownDistance? {
        if case .knownDistance(let distance) = self { return distance }
        return nil
    }

    /// Parses `--scale FACTOR`: a finite number above 0.
    public static func factor(parsing text: String) throws -> UserScale {
        guard let factor = Double(text.trimmingCharacters(in: .whitespaces)), factor.isFinite, factor > 0 else {
            throw MarkerSpec.Invalid(description: "not a number above 0 (metres per model unit)")
        }
        return .factor(factor)
    }
}
