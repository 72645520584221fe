import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The OUTPUT folder of a run, made (with its parents) before any work starts, so that a path
/// that cannot hold one fails at once, in one line that says why.
public enum OutputFolder {
    /// Creates `output` and its subfolder `work` (when given) where missing and checks that both
    /// can be written.
    /// - Parameter role: what the folder is called in messages (`OUTPUT`, `OUT_ROOT`).
    /// - Throws: ``PipelineError/io(_:)``: `cannot write OUTPUT <path>: <why>`, where why is "it
    ///   is a file, not a folder", "<parent> is a file, not a folder", "permission denied",
    ///   "read-only file system", ...
    public static func prepare(_ output: URL, work: URL?, role: String = "OUTPUT") throws {
        let path = output.standardizedFileURL.path
        func failure(_ why: String) -> PipelineError { .io("cannot write \(role) \(output.path): \(why)") }
        // mkdir -p one component at a time, so that the failing component and its errno are known
        // (Foundation's createDirectory reports neither in a form worth showing).
        var prefix = path.hasPrefix("/") ? "" : "."
        let components = path.split(separator: "/").map(String.init)
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            if mkdir(prefix, 0o777) == 0 { continue }
            let error = errno
            if error == EEXIST {
                guard isDirectory(prefix) else {
                    throw failure(index == components.count - 1 ? "it is a file, not a folder"
                                                                : "\(prefix) is a file, not a folder")
                }
                continue
            }
            throw failure(reason(error) + (index == components.count - 1 ? "" : " (creating \(prefix))"))
        }
        guard access(path, W_OK) == 0 else { throw failure(reason(errno)) }
        guard let work else { return }
        try makeOwned(work, role: role, output: output)
    }

    /// Prepares the folders of `layout`: OUTPUT's parent folders as ``prepare(_:work:role:)``
    /// does, the folder beside a single-file OUTPUT (`chair/` for `chair.glb`) and `work/` as
    /// folders of the tool's own (``makeOwned(_:role:output:)``).
    public static func prepare(_ layout: OutputLayout, role: String = "OUTPUT") throws {
        if let file = layout.modelFile {
            try prepare(file.deletingLastPathComponent(), work: nil, role: role)
            try makeOwned(layout.root, role: role, output: file)
        } else {
            try prepare(layout.root, work: nil, role: role)
        }
        try makeOwned(layout.work, role: role, output: layout.modelFile ?? layout.root)
    }

    /// Creates a folder whose name the tool chose (OUTPUT's `work/`, the folder beside a
    /// single-file OUTPUT), or takes the one there only when it is a real folder of this user's.
    ///
    /// Those names are known to anyone: in a shared folder (`/tmp`, a group's scratch space)
    /// another user can create `work` before the run as a symbolic link to a folder of theirs, or
    /// of a victim's, and the run would write its files there and remove folders through it (as
    /// root, anywhere). A folder of another user's could hold such links inside. So an existing
    /// entry is looked at with lstat(2), never followed: a link, a file, or a folder owned by
    /// someone else is refused, in one line, before anything is written.
    /// - Throws: ``PipelineError/io(_:)``: `cannot write OUTPUT <output>: <folder> is a symbolic link ...`.
    public static func makeOwned(_ folder: URL, role: String = "OUTPUT", output: URL) throws {
        let path = folder.standardizedFileURL.path
        func failure(_ why: String) -> PipelineError { .io("cannot write \(role) \(output.path): \(why)") }
        if mkdir(path, 0o777) == 0 { return }
        let error = errno
        guard error == EEXIST else { throw failure(reason(error) + " (creating \(path))") }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure(reason(errno) + " (\(path))") }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            throw failure("\(path) is a symbolic link, which is not followed (remove it, or choose another \(role))")
        case S_IFDIR:
            break
        default:
            throw failure("\(path) is a file, not a folder")
        }
        guard info.st_uid == geteuid() else {
            throw failure("\(path) belongs to another user (uid \(info.st_uid)), whose links inside it would be followed "
                          + "(remove it, or choose another \(role))")
        }
        guard access(path, W_OK) == 0 else { throw failure(reason(errno) + " (\(path))") }
    }

    /// Bytes free to an unprivileged writer on the file system that holds `url`; nil when
    /// statvfs(2) cannot tell.
    public static func freeBytes(at url: URL) -> UInt64? {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Removes `folder` and what it holds when it is a real folder (not a symbolic link): the
    /// removal of a working folder never reaches through a link planted in its place.
    public static func removeOwned(_ folder: URL) {
        var info = stat()
        guard lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Removes `folder` when it is an empty real folder.
    public static func removeIfEmpty(_ folder: URL) {
        var info = stat()
        guard lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return }
        rmdir(folder.path)
    }

    /// Whether `path` is a folder (or a link to one).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// strerror's text for `error` in lower case ("permission denied").
    package static func reason(_ error: Int32) -> String {
        let text = String(cString: strerror(error))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// Refuses an OUTPUT that is INPUT or holds it; an OUTPUT inside INPUT is allowed (ingest
    /// leaves it out, ``FileIdentity``).
    ///
    /// A run's files would otherwise be read as the capture's by the next run: its
    /// `transforms.json` taken as pose priors, its undistorted views as photos; and a capture's
    /// own `transforms.json` (an ARKit export's poses) would be overwritten by ours. Paths are
    /// compared after resolving links, so a second spelling of the same folder is caught too.
    /// - Throws: ``PipelineError/invalidInput(_:)`` saying which and why.
    public static func refuseOverlap(input: URL, output: URL, role: String = "OUTPUT") throws {
        let inputPath = resolvedPath(input), outputPath = resolvedPath(output)
        let why = "the run's files (transforms.json, sparse/, work/) would mix with the capture's and be read as "
            + "its photos and poses by the next run; choose a folder outside INPUT, or inside it"
        if inputPath == outputPath {
            throw PipelineError.invalidInput("\(role) \(output.path) is INPUT: \(why)")
        }
        if inputPath.hasPrefix(outputPath == "/" ? "/" : outputPath + "/") {
            throw PipelineError.invalidInput("\(role) \(output.path) holds INPUT \(input.path): \(why)")
        }
    }

    /// `url`'s absolute path with symbolic links resolved; the part that does not exist yet is
    /// appended as it is spelled.
    static func resolvedPath(_ url: URL) -> String {
        var existing = url.standardizedFileURL.path
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.reversed().joined(separator: "/")
            }
            let parent = (existing as NSString).deletingLastPathComponent
            if parent == existing || parent.isEmpty { return url.standardizedFileURL.path }
            rest.append((existing as NSString).lastPathComponent)
            existing = parent
        }
    }
}

/// A file or folder as the file system knows it (device and inode), whatever path names it.
public struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    let inode: UInt64

    /// The identity of what `url` names (links followed), or nil when it does not exist.
    public init?(_ url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
