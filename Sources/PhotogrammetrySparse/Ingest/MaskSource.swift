import Foundation
import PhotogrammetryCore

/// What selects the modelled part of every frame: one rectangle or one mask image per frame.
///
/// `mask.json` holds `{"rect": {"x": …, "y": …, "width": …, "height": …}}` (top-level x, y,
/// width, height are read too), in upright image pixels, the same for every frame: the rectangle
/// a user drags once over a turntable's object. A mask folder holds one 8-bit PNG per image with
/// the image's stem (`masks/0001.png` for `images/0001.jpg`), 255 = keep.
public enum MaskSource: Sendable, Equatable {
    /// One keep-rectangle for every frame, in upright pixels (x, y = top-left corner).
    case rectangle(x: Double, y: Double, width: Double, height: Double)
    /// One PNG per image in this folder.
    case directory(URL)

    /// The largest value a rectangle's x, y, width or height may have: 2^24 px. No image has a
    /// longer side (at the largest decode limit, 1000 MP, an image 64 px high is 15.6 M px wide),
    /// and x + width stays an exact whole number even in a float. Anything larger is a typo or a
    /// hostile file, not a rectangle in pixels.
    public static let maxRectangleValue = Double(1 << 24)

    /// Reads `--mask PATH`: a folder of PNGs or a JSON file with a rectangle.
    /// - Throws: ``PipelineError/invalidInput(_:)`` naming the file and what is wrong with it.
    public static func load(_ url: URL) throws -> MaskSource {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PipelineError.invalidInput("\(url.path): no such mask file or folder")
        }
        if isDirectory.boolValue { return .directory(url) }
        // Reading a named pipe would block until someone writes to it.
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else {
            throw PipelineError.invalidInput("\(url.path): not a regular file")
        }
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw PipelineError.invalidInput("\(url.path): not a JSON object (want {\"rect\": {\"x\", \"y\", \"width\", \"height\"}})")
        }
        let rect = (object["rect"] as? [String: Any]) ?? object
        let fields = ["x", "y", "width", "height"]
        let values = fields.map { (rect[$0] as? NSNumber)?.doubleValue }
        guard let x = values[0], let y = values[1], let width = values[2], let height = values[3],
              [x, y, width, height].allSatisfy(\.isFinite) else {
            throw PipelineError.invalidInput("\(url.path): rect needs numbers x, y, width and height")
        }
        for (field, value) in zip(fields, [x, y, width, height]) where abs(value) > maxRectangleValue {
            throw PipelineError.invalidInput("\(url.path): rect.\(field) \(String(format: "%.0f", value)) is beyond "
                                             + "\(Int(maxRectangleValue)) px (the rectangle is in image pixels; no image is that large)")
        }
        guard width >= 1, height >= 1, x >= 0, y >= 0 else {
            throw PipelineError.invalidInput("\(url.path): rect \(Int(x)),\(Int(y)) \(Int(width))x\(Int(height)) is empty or negative")
        }
        return .rectangle(x: x, y: y, width: width, height: height)
    }

    /// The masks a capture carries beside its images: a `masks/` folder (preferred: per-frame
    /// masks are the sharper) or a `mask.json`, in the image folder or a folder above it inside
    /// the capture, nearest the capture's root first.
    /// - Throws: ``PipelineError/invalidInput(_:)`` for a `mask.json` that cannot be read, as
    ///   `--mask` would: a run silently unmasked would be a different reconstruction.
    public static func discover(in capture: Capture) throws -> MaskSource? {
        let folders = capture.foldersFromRoot
        let fm = FileManager.default
        for folder in folders {
            var isDirectory: ObjCBool = false
            let masks = folder.appendingPathComponent("masks", isDirectory: true)
            if fm.fileExists(atPath: masks.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return .directory(masks)
            }
        }
        for folder in folders {
            let json = folder.appendingPathComponent("mask.json")
            guard fm.fileExists(atPath: json.path) else { continue }
            do {
                return try load(json)
            } catch PipelineError.invalidInput(let message) {
                throw PipelineError.invalidInput(message + "; --mask none ignores it")
            }
        }
        return nil
    }

    /// The mask file of one image, when this source is a folder and holds one.
    public func maskURL(for image: CaptureImage) -> URL? {
        guard case .directory(let folder) = self else { return nil }
        let stem = (image.name as NSString).deletingPathExtension
        let fm = FileManager.default
        for candidate in [stem + ".png", image.name + ".png", stem + ".PNG"] {
            let url = folder.appendingPathComponent(candidate)
            if fm.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    /// The keep-rectangle, when this source is one.
    public var keepRect: CGRect? {
        guard case .rectangle(let x, let y, let width, let height) = self else { return nil }
        return CGRect(x: x, y: y, width: width, height: height)
    }

    /// Checks the source against the capture: a rectangle must overlap some image. One that
    /// misses every image is the mask's mistake and fails the run; one that misses only some
    /// (a capture of several sizes) rejects those images when their features are extracted,
    /// with a reason naming the rectangle, and is clipped to the others.
    public func validate(against capture: Capture) throws {
        guard let rect = keepRect, !capture.images.isEmpty else { return }
        let misses = { (image: CaptureImage) in rect.minX >= Double(image.width) || rect.minY >= Double(image.height) }
        if let image = capture.images.first, capture.images.allSatisfy(misses) {
            let sizes = Set(capture.images.map { "\($0.width)x\($0.height)" }).sorted()
            throw PipelineError.invalidInput(
                "mask rectangle \(Int(rect.minX)),\(Int(rect.minY)) \(Int(rect.width))x\(Int(rect.height)) lies outside every image "
                + (sizes.count == 1 ? "(\(sizes[0]))" : "(\(image.name) is \(image.width)x\(image.height))"))
        }
    }

    /// Names this source in a cache key, so that features made under other masks are not reused.
    package var cacheKey: String {
        switch self {
        case .rectangle(let x, let y, let width, let height):
            return String(format: "rect%.0f_%.0f_%.0f_%.0f", x, y, width, height)
        case .directory: return "masks"
        }
    }

    /// Says where a run's masks come from: `source` (given or discovered) and the alpha channel of
    /// `alphaImages` images (RGBA cut-outs mask themselves; both apply, with AND), e.g.
    /// "alpha channel of 100 images"; nil when there are no masks at all.
    public static func describe(_ source: MaskSource?, alphaImages: Int) -> String? {
        var parts: [String] = []
        if let source { parts.append(source.summary) }
        if alphaImages > 0 { parts.append("alpha channel of \(alphaImages) image\(alphaImages == 1 ? "" : "s")") }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// Says what it is, for the terminal.
    public var summary: String {
        switch self {
        case .rectangle(let x, let y, let width, let height):
            return String(format: "mask rectangle x %.0f y %.0f, %.0f x %.0f px", x, y, width, height)
        case .directory(let url): return "masks from \(url.path)"
        }
    }
}
