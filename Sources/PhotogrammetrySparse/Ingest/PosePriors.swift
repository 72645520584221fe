import Foundation
import PhotogrammetryCore
import PhotogrammetryIO

/// Pose priors of a capture's images: the camera poses (and intrinsics) an ARKit capture app
/// exported as nerfstudio's `transforms.json`, matched to the capture's image names.
///
/// A frame's `file_path` is matched to an image name by the longest tail of its path that
/// names an image (`images/frame_00001.jpg` finds `frame_00001.jpg`), then ignoring case,
/// then without its last extension (`images/IMG_1.HEIC.jpg` finds `IMG_1.HEIC`), then by stem alone (`frame_00001.png` finds `frame_00001.jpg`) when only one image has that
/// stem. Frames that name no image are left out (counted in ``unmatchedFrames``).
public struct PosePriors: Sendable {
    /// One image's prior.
    public struct Prior: Sendable, Equatable {
        /// World-to-camera pose in the priors' frame (metres for ARKit), OpenCV axes.
        public var camFromWorld: Rigid3
        /// The intrinsics the file gives this image, when one of our camera models holds them.
        public var camera: Camera?
    }

    /// The file read.
    public var file: URL
    /// Priors by image name (as ``CaptureImage/name``).
    public var byName: [String: Prior]
    /// Frames of the file that name none of the capture's images.
    public var unmatchedFrames: Int
    /// The file's contents, hashed: a changed file changes every stage's key after ingest.
    public var digest: String

    /// Reads `url` and matches its frames to `images`.
    /// - Throws: ``PipelineError/invalidInput(_:)`` naming the file (unreadable, not a
    ///   transforms.json, a bad frame, or no frame naming any image).
    public static func load(_ url: URL, images: [CaptureImage]) throws -> PosePriors {
        let transforms = try NerfstudioTransforms.load(from: url)
        var byName: [String: Prior] = [:]
        var unmatched = 0
        let names = ImageNameMatcher(images.map(\.name))
        for frame in transforms.posedFrames {
            guard let name = names.match(frame.filePath) else {
                unmatched += 1
                continue
            }
            byName[name] = Prior(camFromWorld: frame.camFromWorld, camera: frame.intrinsics.camera(id: CameraID(1)))
        }
        guard !byName.isEmpty else {
            throw PipelineError.invalidInput("\(url.path): none of its \(transforms.frames.count) frames names an image of the capture"
                                             + " (file_path such as \(transforms.frames.first?.filePath ?? "-")); --priors none ignores it")
        }
        return PosePriors(file: url, byName: byName, unmatchedFrames: unmatched, digest: ContentDigest.file(url))
    }

    /// The `transforms.json` a capture carries beside its images: in the image folder or a
    /// folder above it inside the capture, nearest the capture's root first (as masks are found).
    public static func discover(in capture: Capture) -> URL? {
        for folder in capture.foldersFromRoot {
            let url = folder.appendingPathComponent("transforms.json")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }

    /// Each image's prior pose, in the order of `images` (nil for an image without one).
    public func poses(for images: [CaptureImage]) -> [Rigid3?] { images.map { byName[$0.name]?.camFromWorld } }

    /// One line for the log: how many images have priors, from which file.
    public var summary: String {
        "pose priors for \(byName.count) images from \(file.lastPathComponent)"
            + (unmatchedFrames > 0 ? " (\(unmatchedFrames) frames name no image of the capture)" : "")
    }
}

/// Matches the file paths another tool wrote to the capture's image names.
struct ImageNameMatcher {
    private var exact: [String: String] = [:]
    private var folded: [String: String] = [:]
    private var stems: [String: [String]] = [:]

    package init(_ names: [String]) {
        for name in names {
            exact[name] = name
            folded[name.lowercased()] = name
            stems[Self.stem(name).lowercased(), default: []].append(name)
        }
    }

    /// The image `path` names, if any.
    package func match(_ path: String) -> String? {
        var parts = path.replacingOccurrences(of: "\\", with: "/").split(separator: "/").map(String.init)
        parts.removeAll { $0 == "." || $0.isEmpty }
        let tails = parts.indices.map { parts[$0...].joined(separator: "/") }
        for tail in tails { if let name = exact[tail] { return name } }
        for tail in tails { if let name = folded[tail.lowercased()] { return name } }
        // A file converted for nerfstudio keeps its whole name before the new extension (`IMG_1.HEIC.jpg`).
        for tail in tails { if let name = exact[Self.stem(tail)] { return name } }
        for tail in tails {
            if let found = stems[Self.stem(tail).lowercased()], found.count == 1 { return found[0] }
        }
        return nil
    }

    static func stem(_ path: String) -> String { (path as NSString).deletingPathExtension }
}
