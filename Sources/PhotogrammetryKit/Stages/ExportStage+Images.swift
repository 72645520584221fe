import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OUTPUT/images/: the images `transforms.json` names, inside OUTPUT, where nerfstudio resolves
/// `file_path` (from the folder holding the file).
///
/// Inside OUTPUT rather than paths back to the capture: a zip's images live in `work/input`,
/// removed when the run ends, and a video's keyframes in `work/video`, which may be deleted;
/// OUTPUT then works alone, moved with or without the capture, and is a COLMAP workspace
/// (`images/` beside `sparse/`) as gsplat and other loaders expect. Nothing is written outside
/// OUTPUT: the folder is built fresh under a temporary name inside OUTPUT (so no link planted
/// in it is followed) and swapped in like a sparse model; names are the capture's, checked to
/// stay inside it.
///
/// Each image is, in this order of preference:
/// - a hard link to the capture's file, when nerfstudio reads that file as the pipeline saw it
///   (JPEG or 8-bit PNG, no EXIF rotation): no disk space, and it outlives the capture's folder
///   or zip. Our files are only ever replaced by renames, never written through a link, so the
///   capture's bytes are never changed;
/// - a copy of it, when a link cannot be made (another file system, a file of another user's);
/// - an upright JPEG (quality 95; PNG above 8192 pixels) named `STEM.jpg`, when nerfstudio
///   cannot read the file as the pipeline saw it: HEIC (Pillow has no decoder), PGM, 16-bit
///   PNG, and photos with an EXIF rotation (Pillow does not apply it, the camera's width and
///   height do).
extension ExportStage {
    /// How an image was put into `images/`.
    enum ImagePlacement: String {
        case link, copy, convert
    }

    /// The path under `images/` of each image (by name): its name, or `STEM.jpg` (`.png`) when
    /// it is converted, `NAME.jpg` should that stem's name be another image's.
    static func exportedImagePaths(_ images: [CaptureImage]) -> [String: String] {
        var paths: [String: String] = [:]
        var taken = Set(images.filter { !needsConversion($0) }.map(\.name))
        for image in images {
            guard needsConversion(image) else {
                paths[image.name] = image.name
                continue
            }
            let suffix = max(image.width, image.height) <= maxJPEGSide ? "jpg" : "png"
            var path = (image.name as NSString).deletingPathExtension + "." + suffix
            if taken.contains(path) { path = image.name + "." + suffix }
            taken.insert(path)
            paths[image.name] = path
        }
        return paths
    }

    /// The longest side a conversion writes as JPEG (``Thumbnail``'s limit); PNG above it.
    static let maxJPEGSide = 8192

    /// Whether nerfstudio (Pillow, without EXIF transposition) would read `image` otherwise
    /// than the pipeline did.
    static func needsConversion(_ image: CaptureImage) -> Bool {
        guard image.exif.orientation <= 1 else { return true }
        switch ImageFormat.sniff(image.url) {
        case .jpeg: return false
        case .png: return pngBitDepth(image.url) == 16
        default: return true
        }
    }

    /// A PNG's bit depth from its header (IHDR, byte 24), nil when unreadable.
    static func pngBitDepth(_ url: URL) -> UInt8? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 25), head.count == 25 else { return nil }
        return head[head.startIndex + 24]
    }

    /// Puts each of `images` into `folder` (a new, empty folder of ours) at `paths[name]`;
    /// returns how each was placed.
    /// - Throws: ``PipelineError`` naming the image when it cannot be linked, copied or converted.
    static func writeImages(_ images: [CaptureImage], paths: [String: String], into folder: URL) throws -> [ImagePlacement] {
        try images.map { image in
            guard let path = paths[image.name], isInside(path) else {
                throw PipelineError.invalidInput("\(image.name): not a path inside the capture's image folder")
            }
            let target = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            if needsConversion(image) {
                let data: Data
                do {
                    data = max(image.width, image.height) <= maxJPEGSide
                        ? try Thumbnail.jpeg(of: image.url, maxSide: max(image.width, image.height), quality: 95)
                        : try PixelImage(contentsOf: image.url).pngData()
                } catch {
                    throw PipelineError.io("\(image.url.path): cannot convert for images/ (\(error))")
                }
                try writeAtomically(data, to: target)
                return .convert
            }
            // AT_SYMLINK_FOLLOW: a capture's file that is a symbolic link gives a link to what it names.
            if linkat(AT_FDCWD, image.url.path, AT_FDCWD, target.path, AT_SYMLINK_FOLLOW) == 0 { return .link }
            do {
                try writeAtomically(try Data(contentsOf: image.url), to: target)
            } catch let error as PipelineError {
                throw error
            } catch {
                throw PipelineError.io("\(image.url.path): cannot copy into images/ (\(error.localizedDescription))")
            }
            return .copy
        }
    }

    /// Whether a relative path stays below its folder: no empty, `.` or `..` part, not absolute.
    static func isInside(_ path: String) -> Bool {
        guard !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}
