import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `data` to `url` through a temporary file in the same folder and a rename, so a reader
/// never sees a half-written file.
/// - Throws: ``PipelineError/io(_:)`` naming the file; a full disk says so with the space the
///   file needs (``WriteFailure``).
public func writeAtomically(_ data: Data, to url: URL) throws {
    let staged = StagedFiles()
    do {
        try staged.write(data, to: url)
        try staged.commit()
    } catch {
        staged.discard()
        throw error
    }
}

/// Writes all of `bytes` to `descriptor`, again after a signal's interruption (EINTR) or a
/// partial write; returns 0, or the errno of the write that failed.
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return 0
}

/// Files written under temporary names and renamed into place together, at the end: a set of
/// files that belong together (a model's USDZ, GLB, OBJ and its textures) is either all new or
/// all as it was, never half of each when a write fails midway (a full disk).
///
/// Each temporary is created with `O_EXCL | O_NOFOLLOW` beside its target: a name planted in
/// its place (a symbolic link) makes the write fail instead of writing through it.
public final class StagedFiles {
    /// (temporary, target) for every file written and not yet committed.
    private var pending: [(temporary: String, target: URL)] = []

    public init() {}

    /// Writes `data` under a temporary name beside `url`.
    /// - Throws: ``PipelineError/io(_:)`` naming `url`.
    public func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp").path
        // A temporary of the same name is this process's own leftover (a failed earlier write).
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteFailure.error(errno, writing: url, bytes: data.count) }
        var failure = data.withUnsafeBytes { writeAll(descriptor, $0) }
        // close(2) reports a write the file system deferred (NFS, a quota).
        if close(descriptor) != 0 && failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw WriteFailure.error(failure, writing: url, bytes: data.count)
        }
        pending.append((temporary, url))
    }

    /// Renames every written file into place, in the order written.
    /// - Throws: ``PipelineError/io(_:)`` naming the file that could not be renamed; the ones
    ///   not yet renamed are removed.
    public func commit() throws {
        // rename(2) replaces the target atomically. (Foundation's replaceItemAt on Linux removes
        // the old file and then fails, which loses it.)
        while !pending.isEmpty {
            let (temporary, target) = pending.removeFirst()
            guard rename(temporary, target.path) == 0 else {
                let error = errno
                unlink(temporary)
                discard()
                throw WriteFailure.error(error, writing: target, bytes: 0)
            }
        }
    }

    /// Removes every written file that was not committed.
    public func discard() {
        for (temporary, _) in pending { unlink(temporary) }
        pending.removeAll()
    }

    deinit { discard() }
}

/// Why a file could not be written, in words for a person: a full disk is named as such, with
/// the device, the file and the room it needed.
public enum WriteFailure {
    /// The error for `code` (errno) while writing `url`, which needed `bytes`.
    public static func error(_ code: Int32, writing url: URL, bytes: Int) -> PipelineError {
        switch code {
        case ENOSPC, EDQUOT:
            let need = bytes > 0 ? " (needs about \(megabytes(bytes)) MB" + free(url) + ")" : ""
            let what = code == ENOSPC ? "no space left on \(device(of: url))" : "disk quota exceeded on \(device(of: url))"
            return .exhausted("\(what) while writing \(url.path)\(need)")
        default:
            return .io("\(url.path): cannot write (\(OutputFolder.reason(code)))")
        }
    }

    /// ", 0 MB free" for the file system holding `url`, or "" when unknown.
    package static func free(_ url: URL) -> String {
        OutputFolder.freeBytes(at: url.deletingLastPathComponent()).map { ", \(megabytes(Int(clamping: $0))) MB free" } ?? ""
    }

    /// Whole megabytes, at least 1 for anything above zero.
    package static func megabytes(_ bytes: Int) -> Int { bytes <= 0 ? 0 : max(1, (bytes + (1 << 19)) >> 20) }

    /// The mount point (and device) holding `url`, from /proc/self/mounts; the folder when unknown.
    package static func device(of url: URL) -> String {
        let path = url.standardizedFileURL.path
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else {
            return url.deletingLastPathComponent().path
        }
        var best: (point: String, device: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2 else { continue }
            // Octal escapes (\040 for a space) are how the kernel writes odd mount points.
            let point = String(fields[1]).replacingOccurrences(of: "\\040", with: " ")
            let inside = point == "/" || path == point || path.hasPrefix(point + "/")
            if inside, point.count >= (best?.point.count ?? -1) { best = (point, String(fields[0])) }
        }
        guard let best else { return url.deletingLastPathComponent().path }
        return "\(best.point) (\(best.device))"
    }
}
