import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on one capture's output folder while a batch process runs it
/// (`OUT_ROOT/NAME/.batch.lock`, flock(2)).
///
/// Shards never share a capture, but two runs with different shardings (`--shard 0/2` beside
/// `--shard 0/3`) or one shard started twice would write the same folder at once.
final class CaptureLock {
    private let held: HeldLock

    /// Takes the lock on `folder` (created when missing), or returns nil when another process holds it.
    /// - Throws: ``PipelineError/io(_:)`` when the folder or the lock file cannot be made.
    init?(folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PipelineError.io("cannot create \(folder.path): \(error.localizedDescription)")
        }
        let path = folder.appendingPathComponent(".batch.lock").path
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PipelineError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard let held = HeldLock(taking: fd) else { return nil }
        self.held = held
    }
}
