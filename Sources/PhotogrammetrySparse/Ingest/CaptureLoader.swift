import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
import PhotogrammetryBridge
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds, unpacks and checks the images of a capture.
public enum CaptureLoader {
    /// The fewest usable images a reconstruction needs.
    public static let minimumImages = 3

    /// The shortest image side worth reading, in pixels: below it even a richly textured frame
    /// gives fewer SIFT features than the 100 points the initial pair needs (smoothed noise
    /// gives 47 features at 48 px, 112 at 64 px; a photo of the temple, 33 at 64 px).
    public static let minimumSide = 64

    /// Loads a capture from a folder, a `.zip` or a video.
    ///
    /// A zip is unpacked into `workspace/input`, only what a capture holds and within a cap
    /// (``CaptureArchive``; hostile entries refuse the whole archive, and nothing of it stays).
    /// The images are those under an `images/` folder when there is one, else every image file
    /// at any depth outside `masks/`, `__MACOSX/` and dot-folders. A file that cannot be used is
    /// listed in `rejected` with its reason and the rest go on: one that is not a regular file (a
    /// named pipe would block the read forever), is empty, truncated, too small, larger than the
    /// decode limit (``DecodeLimits``) or undecodable, whose name a COLMAP text model cannot hold,
    /// and a zip inside the capture (it is not unpacked). How many usable images are enough is
    /// the caller's decision.
    ///
    /// A video (`.mp4`, `.mov`, `.m4v`), or a folder or zip whose only media are videos, becomes
    /// the keyframes ``VideoFrames`` writes into `workspace/video` (``Capture/video`` says which
    /// and why); videos beside photos are rejected, as the two would be one camera's images.
    /// - Parameters:
    ///   - excluding: a folder inside a folder INPUT that is not looked into: the run's own
    ///     OUTPUT, whose views and model files a rerun must not take for the capture's.
    ///   - keyframes: how a video's keyframes are chosen.
    ///   - progress: (done, total) frames of decoding a video; return false to cancel.
    public static func load(input: URL, workspace: URL, excluding: URL? = nil, keyframes: KeyframeSelection.Options = .init(),
                            progress: ((Int, Int) -> Bool)? = nil) throws -> Capture {
        var info = stat()
        guard stat(input.path, &info) == 0 else {
            throw PipelineError.invalidInput("\(input.path): no such file or folder")
        }
        var root = input
        var leftInZip: [String] = []
        let isFile = (info.st_mode & S_IFMT) != S_IFDIR
        let isVideo = isFile && VideoFrames.extensions.contains(input.pathExtension.lowercased())
        let isZip = isFile && !isVideo
        if isVideo {
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw PipelineError.invalidInput("\(input.path): input must be a folder, a .zip file or a video")
            }
            return try loadVideos([(input.lastPathComponent, input)], workspace: workspace, keyframes: keyframes, progress: progress)
        }
        if isZip {
            guard input.pathExtension.lowercased() == "zip", (info.st_mode & S_IFMT) == S_IFREG else {
                throw PipelineError.invalidInput("\(input.path): input must be a folder, a .zip file or a video")
            }
            root = OutputLayout.unpackedInput(in: workspace)
            leftInZip = try CaptureArchive.unpack(input, into: root)
        }
        let excluded = excluding.flatMap(FileIdentity.init)
        let imageRoot = findImageRoot(root, excluding: excluded)
        let files = (listImageFiles(under: imageRoot, excluding: excluded)
                     + entriesLeftInZip(leftInZip, root: root, imageRoot: imageRoot))
            .sorted { $0.0 < $1.0 }
        let videos = files.filter { VideoFrames.extensions.contains($0.1.pathExtension.lowercased()) }
        if !videos.isEmpty, videos.count == files.count {
            var capture = try loadVideos(videos.map { (name: $0.0, url: $0.1) }, workspace: workspace, keyframes: keyframes,
                                         progress: progress)
            capture.videoFolders = Capture(imageRoot: imageRoot, root: root, images: [], rejected: []).foldersFromRoot
            return capture
        }
        var images: [CaptureImage] = []
        var rejected: [RejectedImage] = []
        for (name, url) in files {
            if let problem = nameProblem(name) {
                rejected.append(RejectedImage(name: name, reason: problem))
                continue
            }
            if VideoFrames.extensions.contains(url.pathExtension.lowercased()) {
                rejected.append(RejectedImage(name: name, reason:
                    "a video beside photos is not used (give the video alone, or a folder of videos only)"))
                continue
            }
            if url.pathExtension.lowercased() == "zip" {
                rejected.append(RejectedImage(name: name, reason: isZip
                    ? "zip inside a zip is not unpacked (unpack it into the outer zip's folder)"
                    : "zip inside the capture folder is not unpacked (unpack it beside the images)"))
                continue
            }
            switch inspect(url) {
            case .success(let (width, height, exif)):
                images.append(CaptureImage(name: name, url: url, width: width, height: height, exif: exif))
            case .failure(let reason):
                rejected.append(RejectedImage(name: name, reason: reason.message))
            }
        }
        return Capture(imageRoot: imageRoot, root: root, images: images, rejected: rejected)
    }

    /// The keyframes of `videos` as a capture of JPEG images in `workspace/video`.
    static func loadVideos(_ videos: [(name: String, url: URL)], workspace: URL, keyframes: KeyframeSelection.Options,
                           progress: ((Int, Int) -> Bool)?) throws -> Capture {
        for video in videos {
            if case .failure(let reason) = regularFile(video.url) {
                throw PipelineError.invalidInput("\(video.name): \(reason.message)")
            }
        }
        let folder = OutputLayout.videoFrames(in: workspace)
        let summary = try VideoFrames.extract(videos, into: folder, options: keyframes, progress: progress)
        var capture = try load(input: folder, workspace: workspace)
        capture.video = summary
        return capture
    }

    /// Why an image name cannot be used, or nil: a COLMAP text model holds one image per line,
    /// so a line break (possible in a zip entry's name) would corrupt `images.txt`; other control
    /// characters (tabs split its fields) are refused alike. Spaces are kept: COLMAP writes them
    /// as they are, though its own text reader keeps only the part before the first one.
    static func nameProblem(_ name: String) -> String? {
        guard name.hasControlCharacters else { return nil }
        return "name holds a line break or other control character (\(name.escapingControlCharacters)), "
            + "which a COLMAP text model cannot hold"
    }

    /// The folder that holds the images: a single top folder is descended into, `images/` preferred.
    static func findImageRoot(_ root: URL, excluding excluded: FileIdentity? = nil) -> URL {
        var current = root
        let fm = FileManager.default
        for _ in 0..<8 {
            let candidate = current.appendingPathComponent("images", isDirectory: true)
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate
            }
            let entries = ((try? fm.contentsOfDirectory(atPath: current.path)) ?? [])
                .filter { !$0.hasPrefix(".") && $0 != "__MACOSX" }
                .filter { excluded == nil || FileIdentity(current.appendingPathComponent($0)) != excluded }
            guard entries.count == 1 else { break }
            let only = current.appendingPathComponent(entries[0])
            guard fm.fileExists(atPath: only.path, isDirectory: &isDirectory), isDirectory.boolValue else { break }
            current = only
        }
        return current
    }

    /// Image files (and videos and zips) below `root` by extension, with names relative to it, sorted by
    /// name; of any file type (the caller rejects what is not a regular file).
    static func listImageFiles(under root: URL, excluding excluded: FileIdentity? = nil) -> [(String, URL)] {
        let fm = FileManager.default
        guard let enumerator = fm.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey],
                                             options: [.skipsHiddenFiles]) else { return [] }
        var result: [(String, URL)] = []
        let rootPath = root.standardizedFileURL.path
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                if CaptureArchive.sidecarFolders.contains(name) || name == "__MACOSX" || name == "gt_sparse" || name.hasPrefix(".")
                    || (excluded != nil && FileIdentity(url) == excluded) {
                    enumerator.skipDescendants()
                }
                continue
            }
            let suffix = url.pathExtension.lowercased()
            guard ImageFormat.extensions.contains(suffix) || VideoFrames.extensions.contains(suffix) || suffix == "zip" else { continue }
            var relative = url.standardizedFileURL.path
            if relative.hasPrefix(rootPath + "/") { relative.removeFirst(rootPath.count + 1) }
            result.append((relative, url))
        }
        return result.sorted { $0.0 < $1.0 }
    }

    package struct Rejection: Error { var message: String }

    /// Size and EXIF of one file, or why it cannot be used.
    static func inspect(_ url: URL) -> Result<(Int, Int, ImageMetadata), Rejection> {
        if case .failure(let rejection) = regularFile(url) { return .failure(rejection) }
        guard let format = ImageFormat.sniff(url) else {
            return .failure(Rejection(message: "not a JPEG, PNG or HEIC file"))
        }
        guard format.isDecodable else {
            return .failure(Rejection(message: "\(format.rawValue.uppercased()) decoding is not available in this build"))
        }
        do {
            // The probe also walks the file to its end marker (HEIF: its last box), so a truncated file is
            // refused here instead of being decoded with a grey lower half.
            let size = try ImageMetadata.probeSize(of: url)
            guard min(size.width, size.height) >= minimumSide else {
                return .failure(Rejection(message:
                    "too small (\(size.width)x\(size.height) px, need at least \(minimumSide) px on each side)"))
            }
            // Above the decode limit (``DecodeLimits``): refused here, by the decoders' own check.
            try DecodeLimits.checkDecodable(url)
            let exif = (try? ImageMetadata.read(from: url)) ?? ImageMetadata.empty
            return .success((size.width, size.height, exif))
        } catch let error as CVisionError {
            return .failure(Rejection(message: reason(error.message, file: url.lastPathComponent)))
        } catch {
            return .failure(Rejection(message: "\(error)"))
        }
    }

    /// Why `url` cannot be opened as a file to read, or success: only non-empty regular files
    /// readable by us are (opening a named pipe blocks until someone writes to it).
    static func regularFile(_ url: URL) -> Result<Void, Rejection> {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            return .failure(Rejection(message: "cannot read (\(String(cString: strerror(errno))))"))
        }
        // Only regular files are opened: opening a named pipe blocks until someone writes to it.
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFIFO: return .failure(Rejection(message: "not a regular file (a named pipe)"))
        case S_IFSOCK: return .failure(Rejection(message: "not a regular file (a socket)"))
        case S_IFCHR, S_IFBLK: return .failure(Rejection(message: "not a regular file (a device)"))
        default: return .failure(Rejection(message: "not a regular file"))
        }
        guard info.st_size > 0 else { return .failure(Rejection(message: "empty file (0 bytes)")) }
        guard access(url.path, R_OK) == 0 else {
            return .failure(Rejection(message: "cannot read (\(String(cString: strerror(errno))))"))
        }
        return .success(())
    }

    /// The core's message without its leading "NAME: ", which the rejection names already.
    package static func reason(_ message: String, file: String) -> String {
        guard !message.isEmpty else { return "unreadable" }
        return message.hasPrefix(file + ": ") ? String(message.dropFirst(file.count + 2)) : message
    }
}
