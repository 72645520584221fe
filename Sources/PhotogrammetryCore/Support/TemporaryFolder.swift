import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private working folder under the system's temporary directory (`TMPDIR`, else `/tmp`).
///
/// Made by mkdtemp(3): the name ends in random characters nobody could have chosen beforehand,
/// and the folder is created, mode 0700, in one step that fails rather than reuse anything that
/// exists. A folder named after the process id could be planted as a symbolic link in the shared
/// `/tmp` before the run, and the run would then write wherever it points.
public enum TemporaryFolder {
    /// Creates a fresh folder `<temporary directory>/<prefix>XXXXXX` and returns it.
    /// - Throws: ``PipelineError/io(_:)`` naming the folder it could not create.
    public static func make(prefix: String) throws -> URL {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        var template = Array(base.appendingPathComponent(prefix + "XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            mkdtemp(buffer.baseAddress!) != nil
        }
        guard made else {
            let reason = String(cString: strerror(errno))
            throw PipelineError.io("cannot create a temporary folder in \(base.path) (\(reason))")
        }
        return URL(fileURLWithPath: String(cString: template), isDirectory: true)
    }
}
