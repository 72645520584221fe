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
        let workPath = work.standardizedFileURL.path
        if mkdir(workPath, 0o777) != 0 && errno != EEXIST { throw failure(reason(errno)) }
        guard isDirectory(workPath) else { throw failure("\(workPath) is a file, not a folder") }
        guard access(workPath, W_OK) == 0 else { throw failure(reason(errno) + " (\(workPath))") }
    }

    /// Whether `path` is a folder (or a link to one).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// strerror's text for `error` in lower case ("permission denied").
    static func reason(_ error: Int32) -> String {
        let text = String(cString: strerror(error))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
