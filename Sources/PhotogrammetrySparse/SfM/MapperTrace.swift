import Foundation

/// Whether the mapper narrates its decisions on standard error: set `PHOTOGRAMMETRY_TRACE=1`.
package let mapperTracing = ProcessInfo.processInfo.environment["PHOTOGRAMMETRY_TRACE"] != nil

/// One line of the mapper's narration (initial pairs, registrations, merges), for whoever
/// debugs a capture that does not align; free when tracing is off.
package func trace(_ message: @autoclosure () -> String) {
    if mapperTracing { FileHandle.standardError.write(Data((message() + "\n").utf8)) }
}
