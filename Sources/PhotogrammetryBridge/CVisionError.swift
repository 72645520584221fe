import CVision
import PhotogrammetryCore

/// An error reported by the C++ core, with its status code and message.
///
/// Every CVision call returns a `cvis_status`; ``check(_:)`` turns a failure into this error,
/// taking the thread-local message the core left behind.
public struct CVisionError: Error, CustomStringConvertible, Equatable {
    /// The kind of failure, mirroring `cvis_status`.
    public enum Code: Int32, Sendable {
        case invalidArgument = 1, ioError = 2, decodeError = 3, notEnoughData = 4
        case noConvergence = 5, unsafeArchive = 6, limitExceeded = 7, noSpace = 8, outOfMemory = 9
        case internalError = 99
    }

    /// What went wrong.
    public let code: Code
    /// The core's message (names the file, entry or index at fault).
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message.isEmpty ? "\(code)" : message }
}

extension Error {
    /// Whether this failure is the machine's (no disk space, no memory) rather than one input's:
    /// such a failure ends the run. Skipping the image it happened on and going on would fail
    /// every image after it the same way, and end in a message about the images ("no depth map
    /// could be computed") instead of the disk.
    public var isResourceExhaustion: Bool {
        if case PipelineError.exhausted? = self as? PipelineError { return true }
        guard let error = self as? CVisionError else { return false }
        return error.code == .noSpace || error.code == .outOfMemory
    }
}

/// Throws ``CVisionError`` unless `status` is `CVIS_OK`.
@inline(__always)
package func check(_ status: cvis_status) throws {
    guard status != CVIS_OK else { return }
    let message = String(cString: cvis_last_error_message())
    let code = CVisionError.Code(rawValue: Int32(bitPattern: status.rawValue)) ?? .internalError
    throw CVisionError(code: code, message: message)
}
