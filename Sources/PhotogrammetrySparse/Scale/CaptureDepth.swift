import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Where a capture's depth images are: a `depth/` folder beside (or above) its images, one
/// 16-bit PNG in millimetres per image with the image's stem, a room scan's depth frames
/// (``DepthFrames``) for the keyframes matched to them, or the depth image a HEIC carries.
public struct CaptureDepth: Sendable {
    /// The `depth/` folder found, if any.
    public let folder: URL?
    /// A room scan's depth frames, if it carries them.
    public let frames: DepthFrames?
    /// Each keyframe image's depth frame in ``frames`` and its video's display rotation, by image name.
    public let frameOfImage: [String: (index: Int, rotationDegrees: Int)]

    public init(folder: URL?, frames: DepthFrames? = nil, frameOfImage: [String: (index: Int, rotationDegrees: Int)] = [:]) {
        self.folder = folder
        self.frames = frames
        self.frameOfImage = frames == nil ? [:] : frameOfImage
    }

    /// These depth images and, when `scan` carries depth frames, those of its matched keyframes.
    public func adding(_ scan: ARKitScan?) -> CaptureDepth {
        guard let scan, let frames = scan.depth else { return self }
        var links: [String: (index: Int, rotationDegrees: Int)] = [:]
        for (name, index) in scan.frameOfImage { links[name] = (index, scan.rotationOfImage[name] ?? 0) }
        return CaptureDepth(folder: folder, frames: frames, frameOfImage: links)
    }

    /// The depth folder a capture carries: `depth/` in the image folder or a folder above it
    /// inside the capture, nearest the capture's root first (as masks are found).
    public static func discover(in capture: Capture) -> CaptureDepth {
        let folders = capture.foldersFromRoot
        for folder in folders {
            var isDirectory: ObjCBool = false
            let depth = folder.appendingPathComponent("depth", isDirectory: true)
            if FileManager.default.fileExists(atPath: depth.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return CaptureDepth(folder: depth)
            }
        }
        return CaptureDepth(folder: nil)
    }

    /// The depth PNG of the image named `name` (relative to the image folder) in the folder.
    public func pngURL(for name: String) -> URL? {
        guard let folder else { return nil }
        let stem = (name as NSString).deletingPathExtension
        for candidate in [stem + ".png", stem + ".PNG", name + ".png"] {
            let url = folder.appendingPathComponent(candidate)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    /// The folder beside `depth/` that holds its confidence maps.
    public static let confidenceFolderName = "depth_confidence"

    /// The confidence PNG of the image named `name`: `depth_confidence/STEM.png` beside the depth
    /// folder (8-bit, ARKit's levels 0 low, 1 medium, 2 high, the depth PNG's size).
    public func confidenceURL(for name: String) -> URL? {
        guard let folder else { return nil }
        let url = folder.deletingLastPathComponent().appendingPathComponent(Self.confidenceFolderName, isDirectory: true)
            .appendingPathComponent((name as NSString).deletingPathExtension + ".png")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The contents of the depth PNGs of `images` (with their names) and of the depth frames
    /// with each image's frame, hashed on `threads` threads; "" without either.
    public func digest(of images: [CaptureImage], threads: Int) -> String {
        guard folder != nil || frames != nil else { return "" }
        let digests = ResultSlots<String>(count: images.count)
        parallelFor(images.count, threads: threads) { i in
            let confidence = confidenceURL(for: images[i].name).map { " confidence=" + ContentDigest.file($0) } ?? ""
            digests[i] = pngURL(for: images[i].name).map { $0.lastPathComponent + "=" + ContentDigest.file($0) + confidence }
                ?? frameOfImage[images[i].name].map { "frame \($0.index) turned \($0.rotationDegrees)" } ?? "-"
        }
        var hash = StableHash()
        hash.add("depth " + (folder?.lastPathComponent ?? "-"))
        if let frames { hash.add("frames \(frames.width)x\(frames.height) " + ContentDigest.file(frames.file)) }
        for digest in digests.values { hash.add(digest ?? "-") }
        return hash.hex
    }

    /// What one image's depth is.
    public enum Lookup {
        /// No depth image: neither a PNG in the folder nor a HEIC depth item.
        case none
        /// A depth image in metres.
        case depth(MetricDepthImage)
        /// A depth image that cannot give scale, and why.
        case unusable(String)
    }

    /// The depth of `image`: its PNG in the depth folder (preferred), its depth frame
    /// or its HEIC depth item, checked to be in the photo's frame.
    public func load(_ image: CaptureImage) -> Lookup {
        let found: MetricDepthImage
        do {
            if let url = pngURL(for: image.name) {
                var png = MetricDepthImage(millimetres: try DepthPNG.read(from: url))
                if let confidenceURL = confidenceURL(for: image.name) {
                    let confidence = try DepthPNG.read(from: confidenceURL)
                    guard confidence.width == png.width, confidence.height == png.height, confidence.bitDepth == 8 else {
                        return .unusable("confidence map \(confidenceURL.lastPathComponent) is \(confidence.width)x"
                                         + "\(confidence.height), \(confidence.bitDepth)-bit, not the depth image's "
                                         + "\(png.width)x\(png.height) in 8 bits")
                    }
                    png.confidence = confidence.samples.map { UInt8(clamping: Int($0)) }
                }
                found = png
            } else if let frames, let link = frameOfImage[image.name] {
                found = try frames.frame(link.index, rotationDegrees: link.rotationDegrees)
            } else if ["heic", "heif"].contains(image.url.pathExtension.lowercased()),
                      let heic = try HEICDepthImage.read(from: image.url) {
                found = try MetricDepthImage(heic: heic)
            } else {
                return .none
            }
        } catch let unusable as MetricDepthImage.Unusable {
            return .unusable(unusable.reason)
        } catch PipelineError.invalidInput(let message) {
            return .unusable(message)
        } catch {
            return .unusable("depth image unreadable: \(error)")
        }
        guard found.matches(imageWidth: image.width, imageHeight: image.height) else {
            return .unusable("depth image \(found.width)x\(found.height) is not in the frame of the \(image.width)x\(image.height) "
                             + "photo (another aspect ratio: left in the sensor's orientation?)")
        }
        return .depth(found)
    }
}
