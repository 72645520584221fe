import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
import PhotogrammetryBridge
#elseif canImport(Darwin)
import Darwin
#endif

/// A zip capture unpacked for one run into `work/input`: only what a capture can hold is written,
/// within a total the disk and the images can take, and the copy goes when the run is done.
///
/// What is unpacked: images (JPEG, PNG, HEIC, PGM, by extension, wherever they are, so also the
/// PNGs of `masks/` and `depth/`), `mask.json`, `transforms.json` and `markers.json`, a room
/// scan's `arkitData.json`, `config.json` and `allDepthFrames.bin`, and videos
/// when the zip holds no photos (the README's capture layout). Everything else stays in the zip:
/// a text file, a RAW file or a disk image can be large and is read by no stage. A zip inside the
/// zip and a video beside photos stay in it too, and the loader names them in `rejected_images`
/// as it names them in a folder.
enum CaptureArchive {
    /// Which entries a zip's listing gives to unpack, and what they declare.
    package struct Plan: Equatable {
        /// Entry paths to extract: the files above and every folder entry (folders hold no bytes,
        /// and keep the capture's layout as the zip has it).
        var unpack: [String] = []
        /// Files left in the zip that the loader names: zips, and videos beside photos.
        package var named: [String] = []
        /// Images and sidecars among `unpack`.
        package var files = 0
        /// Videos among `unpack`.
        var videos = 0
        /// The sum of the sizes `unpack`'s entries declare (an entry that declares none counts 0:
        /// extraction holds what comes out to the cap all the same).
        var declaredBytes: UInt64 = 0
    }

    /// The most a zip capture may unpack, and why, for the refusal.
    struct Cap: Equatable {
        package var bytes: UInt64
        package var reason: String
    }

    /// Sidecar files a capture carries beside its images, by name.
    /// (Lower case: names are compared so.) A room scan's (``ARKitScan``) count as images do.
    static let sidecarNames: Set<String> = ["mask.json", "transforms.json", "markers.json",
                                            ARKitScan.framesFileName.lowercased(), ARKitScan.configFileName.lowercased(),
                                            ARKitScan.depthFileName.lowercased(), ARKitScan.confidenceFileName.lowercased()]

    /// Folders whose images are not photos of the capture (masks, depth images and their
    /// confidence), which the loader skips.
    static let sidecarFolders: Set<String> = ["masks", "depth", CaptureDepth.confidenceFolderName]

    /// The unpacked copy's bytes per pixel of the decode limit, for each image: 16-bit RGBA
    /// stored uncompressed, more than any encoding of an image the decode limit lets through needs.
    static let bytesPerPixel: UInt64 = 8

    /// Chooses what to unpack from a zip's entries (see the type's summary).
    package static func plan(_ entries: [ZipArchive.Entry]) -> Plan {
        func parts(_ path: String) -> [Substring] { path.split(whereSeparator: { $0 == "/" || $0 == "\\" }) }
        func suffix(_ path: String) -> String { (String(parts(path).last ?? "") as NSString).pathExtension.lowercased() }
        let isImage = { (path: String) in ImageFormat.extensions.contains(suffix(path)) }
        let holdsPhotos = entries.contains { entry in
            !entry.isDirectory && isImage(entry.path) && !parts(entry.path).dropLast().contains { sidecarFolders.contains(String($0)) }
        }
        var plan = Plan()
        for entry in entries {
            let kind = suffix(entry.path)
            let name = String(parts(entry.path).last ?? "")
            if entry.isDirectory {
                plan.unpack.append(entry.path)
                continue
            }
            if kind == "zip" || (VideoFrames.extensions.contains(kind) && holdsPhotos) {
                plan.named.append(entry.path)
                continue
            }
            if VideoFrames.extensions.contains(kind) {
                plan.videos += 1
            } else if isImage(entry.path) || sidecarNames.contains(name.lowercased()) {
                plan.files += 1
            } else {
                continue
            }
            plan.unpack.append(entry.path)
            plan.declaredBytes += entry.size ?? 0
        }
        return plan
    }

    /// The cap on what a zip capture unpacks: the smaller of the free space at the destination
    /// less a margin (a tenth of it, at least 1 GiB: the run's features, depth maps and models
    /// need room after it, and a disk filled to its last byte fails everything else on it) and
    /// what its files can need (each image or sidecar ``bytesPerPixel`` per pixel of the decode
    /// limit, each video the per-entry cap).
    package static func cap(freeBytes: UInt64, plan: Plan, maxPixels: UInt64, entryCap: UInt64) -> Cap {
        let perFile = min(entryCap, bytesPerPixel * maxPixels)
        let content = UInt64(plan.files) * perFile + UInt64(plan.videos) * entryCap
        let margin = max(UInt64(1) << 30, freeBytes / 10)
        let disk = freeBytes > margin ? freeBytes - margin : 0
        if disk < content {
            return Cap(bytes: disk, reason: "the free space at the destination, \(byteText(freeBytes)), less a margin of \(byteText(margin))")
        }
        var parts: [String] = []
        if plan.files > 0 {
            parts.append("\(plan.files) image\(plan.files == 1 ? "" : "s") at \(bytesPerPixel) bytes per pixel of the "
                         + "\(DecodeLimits.megapixelsText(maxPixels)) MP limit (--max-megapixels)")
        }
        if plan.videos > 0 { parts.append("\(plan.videos) video\(plan.videos == 1 ? "" : "s") at \(byteText(entryCap)) each") }
        return Cap(bytes: content, reason: parts.isEmpty ? "nothing to unpack" : parts.joined(separator: " and "))
    }

    /// Unpacks what `zip` holds of a capture into `root` (made afresh); returns the entries left
    /// in the zip that the loader names (``Plan/named``).
    /// - Throws: ``PipelineError/invalidInput(_:)`` in one line naming the zip: a hostile entry,
    ///   a cap passed, or more to unpack than ``cap(freeBytes:plan:maxPixels:entryCap:)`` allows
    ///   (refused before anything is written). Nothing unpacked stays after a refusal.
    static func unpack(_ zip: URL, into root: URL) throws -> [String] {
        let fm = FileManager.default
        try? fm.removeItem(at: root)
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        let name = zip.lastPathComponent
        do {
            var limits = UnzipLimits()
            let plan = plan(try ZipArchive.entries(of: zip, limits: limits))
            let cap = cap(freeBytes: OutputFolder.freeBytes(at: root) ?? 0, plan: plan, maxPixels: DecodeLimits.current.maxPixels,
                          entryCap: limits.maxEntryBytes)
            guard plan.declaredBytes <= cap.bytes else {
                throw PipelineError.invalidInput("\(name): would unpack \(byteText(plan.declaredBytes)) in \(plan.files + plan.videos) "
                                                 + "files, above the cap of \(byteText(cap.bytes)) (\(cap.reason))")
            }
            // While streaming, what comes out is held to the same cap (declared sizes can lie).
            limits.maxTotalBytes = max(cap.bytes, 1)
            try ZipArchive.extract(zip, to: root, limits: limits, only: plan.unpack)
            return plan.named
        } catch let error as CVisionError {
            // Whatever was unpacked before the refusal goes too.
            try? fm.removeItem(at: root)
            throw PipelineError.invalidInput(error.message.hasPrefix(name) ? error.message : "\(name): \(error.message)")
        } catch {
            try? fm.removeItem(at: root)
            throw error
        }
    }

    /// "2.15 GiB", "17.0 MiB", "512 bytes".
    static func byteText(_ bytes: UInt64) -> String {
        if bytes >= 1 << 30 { return String(format: "%.2f GiB", Double(bytes) / Double(1 << 30)) }
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        return "\(bytes) bytes"
    }
}

extension CaptureLoader {
    /// Removes the unpacked copy of a zip capture (`workspace/input`), once the last stage that
    /// reads the images (the report's thumbnails, after the dense stage's undistortion and the
    /// texturing) is done: it can be as large as the zip's images, and a rerun unpacks it again
    /// (the same bytes, so every checkpoint keyed by content still applies). No-op for a folder.
    public static func removeUnpackedInput(workspace: URL) {
        OutputFolder.removeOwned(OutputLayout.unpackedInput(in: workspace))
    }

    /// The entries a zip kept that the loader names (``CaptureArchive/Plan/named``), as (name,
    /// URL) pairs like ``listImageFiles(under:)``'s: those under `imageRoot`, named relative to it
    /// (the files themselves do not exist).
    static func entriesLeftInZip(_ paths: [String], root: URL, imageRoot: URL) -> [(String, URL)] {
        let prefix = imageRoot.standardizedFileURL.path + "/"
        return paths.compactMap { path in
            let url = root.appendingPathComponent(path.replacingOccurrences(of: "\\", with: "/")).standardizedFileURL
            guard url.path.hasPrefix(prefix) else { return nil }
            return (String(url.path.dropFirst(prefix.count)), url)
        }
    }
}
