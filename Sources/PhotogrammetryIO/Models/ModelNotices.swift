import Foundation

/// Lines a model reader or writer must tell the user besides its result: that it fell back to
/// something else (a USDZ written with a text layer, a USD file read by the text reader, because
/// usd-core is missing), so that a different result is never a silent one.
///
/// A line goes to the handler of the innermost ``routing(to:_:)`` (a reconstruction sends it as
/// a progress event), else to standard error as `photogrammetry: warning: LINE`. Each distinct
/// line is said once per process.
public enum ModelNotices {
    /// Tells `line` (one line, naming the file).
    static func post(_ line: String) {
        guard let handler = state.take(line) else { return }
        handler(line)
    }

    /// Runs `body` with the lines posted meanwhile sent to `handler` instead of standard error.
    public static func routing<T>(to handler: @escaping (String) -> Void, _ body: () throws -> T) rethrows -> T {
        state.push(handler)
        defer { state.pop() }
        return try body()
    }

    private static let state = State()

    private final class State: @unchecked Sendable {
        private var handlers: [(String) -> Void] = []
        private var said: Set<String> = []
        private let lock = NSLock()

        func push(_ handler: @escaping (String) -> Void) { lock.lock(); handlers.append(handler); lock.unlock() }
        func pop() { lock.lock(); handlers.removeLast(); lock.unlock() }

        /// The handler for `line`, nil when it was said before.
        func take(_ line: String) -> ((String) -> Void)? {
            lock.lock()
            defer { lock.unlock() }
            guard said.insert(line).inserted else { return nil }
            return handlers.last ?? { line in
                FileHandle.standardError.write(Data("photogrammetry: warning: \(line)\n".utf8))
            }
        }
    }
}
