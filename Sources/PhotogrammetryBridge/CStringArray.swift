import Foundation

/// Calls `body` with a C array of C strings (`const char* const*`), nil entries as NULL, valid
/// only during the call: the shape the core takes lists of paths in.
func withCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws -> R) rethrows -> R {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { copies.forEach { free($0) } }
    return try copies.map { $0.map { UnsafePointer($0) } }.withUnsafeBufferPointer { try body($0.baseAddress) }
}
