import Foundation

/// Writes `data` to `url` through a temporary file in the same folder and a rename, so a reader
/// never sees a half-written file.
public func writeAtomically(_ data: Data, to url: URL) throws {
    let temporary = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
    do {
        try data.write(to: temporary)
        // rename(2) replaces the target atomically. (Foundation's replaceItemAt on Linux removes
        // the old file and then fails, which loses it.)
        guard rename(temporary.path, url.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
    } catch {
        try? FileManager.default.removeItem(at: temporary)
        throw PipelineError.io("\(url.path): cannot write (\(error.localizedDescription))")
    }
}
