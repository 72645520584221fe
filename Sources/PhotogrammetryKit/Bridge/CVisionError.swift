import CVision

/// An error reported by the C++ core, with its status code and message.
///
/// Every CVision call returns a `cvis_status`; ``check(_:)`` turns a failure into this error,
/// taking the thread-local message the core left behind.
public struct CVisionError: Error, CustomStringConvertible, Equatable {
    /// The kind of failure, mirroring `cvis_status`.
    public enum Code: Int32, Sendable {
        case invalidArgument = 1, ioError = 2, decodeError = 3, notEnoughData = 4
        case noConvergence = 5, unsafeArchive = 6, limitExceeded = 7, internalError = 99
    }

    /// What went wrong.
    public let code: Code
    /// The core's message (names the file, entry or index at fault).
    public let message: String

    public var description: String { message.isEmpty ? "\(code)" : message }
}

/// Throws ``CVisionError`` unless `status` is `CVIS_OK`.
@inline(__always)
func check(_ status: cvis_status) throws {
    guard status != CVIS_OK else { return }
    let message = String(cString: cvis_last_error_message())
    let code = CVisionError.Code(rawValue: Int32(bitPattern: status.rawValue)) ?? .internalError
    throw CVisionError(code: code, message: message)
}
