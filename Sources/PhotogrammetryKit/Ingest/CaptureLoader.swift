import Foundation

/// Finds, unpacks and checks the images of a capture.
public enum CaptureLoader {
    /// The fewest usable images a reconstruction needs.
    public static let minimumImages = 3

    /// Loads a capture from a folder or a `.zip`.
    ///
    /// A zip is unpacked into `workspace/input` (hostile entries refuse the whole archive). The
    /// images are those under an `images/` folder when there is one, else every image file at
    /// any depth outside `masks/`, `__MACOSX/` and dot-folders. A file that cannot be read is
    /// listed in `rejected` with its reason and the rest go on.
    /// - Throws: ``PipelineError/tooFewImages(usable:required:input:)`` below three usable images.
    public static func load(input: URL, workspace: URL) throws -> Capture {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: input.path, isDirectory: &isDirectory) else {
            throw PipelineError.invalidInput("\(input.path): no such file or folder")
        }
        var root = input
        if !isDirectory.boolValue {
            guard input.pathExtension.lowercased() == "zip" else {
                throw PipelineError.invalidInput("\(input.path): input must be a folder or a .zip")
            }
            root = workspace.appendingPathComponent("input", isDirectory: true)
            try? fm.removeItem(at: root)
            try fm.createDirectory(at: root, withIntermediateDirectories: true)
            do {
                _ = try ZipArchive.extract(input, to: root)
            } catch let error as CVisionError {
                let name = input.lastPathComponent
                throw PipelineError.invalidInput(error.message.hasPrefix(name) ? error.message : "\(name): \(error.message)")
            }
        }
        let imageRoot = findImageRoot(root)
        let files = listImageFiles(under: imageRoot)
        var images: [CaptureImage] = []
        var rejected: [RejectedImage] = []
        for (name, url) in files {
            switch inspect(url) {
            case .success(let (width, height, exif)):
                images.append(CaptureImage(name: name, url: url, width: width, height: height, exif: exif))
            case .failure(let reason):
                rejected.append(RejectedImage(name: name, reason: reason.message))
            }
        }
        guard images.count >= minimumImages else {
            throw PipelineError.tooFewImages(usable: images.count, required: minimumImages, input: input.path)
        }
        return Capture(imageRoot: imageRoot, root: root, images: images, rejected: rejected)
    }

    /// The folder that holds the images: a single top folder is descended into, `images/` preferred.
    static func findImageRoot(_ root: URL) -> URL {
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
            guard entries.count == 1 else { break }
            let only = current.appendingPathComponent(entries[0])
            guard fm.fileExists(atPath: only.path, isDirectory: &isDirectory), isDirectory.boolValue else { break }
            current = only
        }
        return current
    }

    /// Image files below `root` by extension, with names relative to it, sorted by name.
    static func listImageFiles(under root: URL) -> [(String, URL)] {
        let fm = FileManager.default
        guard let enumerator = fm.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey],
                                             options: [.skipsHiddenFiles]) else { return [] }
        var result: [(String, URL)] = []
        let rootPath = root.standardizedFileURL.path
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                if name == "masks" || name == "__MACOSX" || name == "gt_sparse" || name.hasPrefix(".") {
                    enumerator.skipDescendants()
                }
                continue
            }
            guard ImageFormat.extensions.contains(url.pathExtension.lowercased()) else { continue }
            var relative = url.standardizedFileURL.path
            if relative.hasPrefix(rootPath + "/") { relative.removeFirst(rootPath.count + 1) }
            result.append((relative, url))
        }
        return result.sorted { $0.0 < $1.0 }
    }

    struct Rejection: Error { var message: String }

    /// Size and EXIF of one file, or why it cannot be used.
    static func inspect(_ url: URL) -> Result<(Int, Int, ImageMetadata), Rejection> {
        guard let format = ImageFormat.sniff(url) else {
            return .failure(Rejection(message: "not a JPEG, PNG or HEIC file"))
        }
        guard format.isDecodable else {
            return .failure(Rejection(message: "\(format.rawValue.uppercased()) decoding is not available in this build"))
        }
        do {
            let size = try ImageMetadata.probeSize(of: url)
            let exif = (try? ImageMetadata.read(from: url)) ?? ImageMetadata.empty
            return .success((size.width, size.height, exif))
        } catch let error as CVisionError {
            return .failure(Rejection(message: error.message.isEmpty ? "unreadable" : error.message))
        } catch {
            return .failure(Rejection(message: "\(error)"))
        }
    }
}
