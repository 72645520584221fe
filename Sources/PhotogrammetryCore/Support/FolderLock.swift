import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive flock(2) on an open descriptor, held until this is released; the descriptor is
/// closed then. The kernel drops the lock when its process ends, however it ends, so a crash
/// leaves no stale lock.
package final class HeldLock: @unchecked Sendable {
    private let descriptor: Int32

    /// Takes the lock on `descriptor` and owns it, or closes it and returns nil when another
    /// process holds the lock.
    package init?(taking descriptor: Int32) {
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// An exclusive lock on a folder itself (flock(2) on the folder's descriptor), held while one
/// process works in it.
///
/// No lock file is written, so the folder can be removed (or left empty) as if there were no
/// lock.
public final class FolderLock: @unchecked Sendable {
    private let held: HeldLock

    /// Takes the lock on the existing folder `folder`, or returns nil when another process holds it.
    /// - Throws: ``PipelineError/io(_:)`` when the folder cannot be opened.
    public init?(folder: URL) throws {
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw PipelineError.io("cannot open \(folder.path): \(OutputFolder.reason(errno))") }
        guard let held = HeldLock(taking: fd) else { return nil }
        self.held = held
    }
}
