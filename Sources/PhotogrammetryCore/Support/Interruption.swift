import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What SIGINT and SIGTERM do to a `photogrammetry` process: run the cleanups registered at that
/// moment, say so in one line on standard error, and exit 130 or 143 (128 + the signal's number,
/// what a shell reports for a process the signal ended).
///
/// Ctrl-C, `kill`, `timeout`, Slurm's `scancel` and job managers all end a run this way. Left to
/// the default action, a signal ends the process where it stands: a temporary folder stays
/// behind, a batch's child goes on without it, and the user is told nothing.
///
/// The signals are taken by DispatchSource signal sources (their default disposition ignored),
/// so the cleanups run on an ordinary queue, not in a signal handler, and may do anything:
/// remove a folder, write a record. The process then ends with `_exit`, after flushing standard
/// output: other threads (OpenCV's, Ceres') may still be running, and `exit`'s static
/// destructors and `atexit` handlers would race them.
///
/// The line is `photogrammetry: interrupted by SIGINT`, followed by ``advice`` when a command
/// set one (`; run the same command again to resume from the checkpoints`). On a terminal a
/// progress line is cleared first.
///
/// ```swift
/// Interruption.install()                  // once, at the start of main
/// let token = Interruption.register { try? FileManager.default.removeItem(at: workspace) }
/// defer { Interruption.unregister(token) }
/// ```
///
/// or scoped: `try Interruption.whileRunning(cleanup: { ... }) { ... }`. Work that must wind
/// down by itself before the process ends (a batch stopping its child and finishing its record)
/// runs under ``deferring(_:_:)``. Cleanups run on the signal's queue while the interrupted work
/// may still be going on in other threads: one must tolerate that (a folder being written
/// into while it is removed).
public enum Interruption {
    /// A registered cleanup, to unregister it.
    public struct Token: Hashable, Sendable {
        fileprivate let id: Int
    }

    /// Installs the handling of SIGINT and SIGTERM for this process; later calls do nothing.
    public static func install() {
        state.installOnce {
            [SIGINT, SIGTERM].map { signalNumber in
                // Ignored, so that the default action (the end of the process) never happens;
                // the source still sees every signal sent.
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { take(signalNumber) }
                source.resume()
                return source
            }
        }
    }

    /// What the user can do about the interruption, put after the line's `; `
    /// ("run the same command again to resume from the checkpoints"), or nil for nothing.
    public static var advice: String? {
        get { state.withLock { $0.advice } }
        set { state.withLock { $0.advice = newValue } }
    }

    /// The first SIGINT or SIGTERM this process received, nil before one.
    public static var received: Int32? { state.withLock { $0.received } }

    /// Adds `cleanup` to what a signal runs before the process ends (most recent first).
    /// - Returns: the token that ``unregister(_:)`` takes when the cleanup is no longer needed.
    @discardableResult
    public static func register(_ cleanup: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            state.nextID += 1
            state.cleanups.append((state.nextID, cleanup))
            return Token(id: state.nextID)
        }
    }

    /// Removes a cleanup ``register(_:)`` added; an unknown token does nothing.
    public static func unregister(_ token: Token) {
        state.withLock { $0.cleanups.removeAll { $0.id == token.id } }
    }

    /// Runs `body` with `cleanup` registered, and unregisters it when `body` returns or throws
    /// (the cleanup itself runs only on a signal).
    public static func whileRunning<T>(cleanup: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        let token = register(cleanup)
        defer { unregister(token) }
        return try body()
    }

    /// Runs `body` with SIGINT and SIGTERM handed to `onSignal` (on the signal's queue) instead
    /// of ending the process; when `body` returns or throws after one came, the process ends as
    /// on any signal (the cleanups, the line, 130 or 143).
    ///
    /// For work that has to stop something itself first: a batch sends the signal on to its
    /// running child, waits for it, and records the capture as interrupted. `onSignal` is called
    /// again for every further signal; `body` learns of one through its own state (or
    /// ``received``) and returns soon.
    public static func deferring<T>(_ onSignal: @escaping @Sendable (Int32) -> Void, _ body: () throws -> T) rethrows -> T {
        let id = state.withLock { state in
            state.nextID += 1
            state.deferrals.append((state.nextID, onSignal))
            return state.nextID
        }
        defer { endDeferral(id) }
        return try body()
    }

    /// "SIGINT", "SIGTERM", or "signal N".
    public static func name(of signalNumber: Int32) -> String {
        switch signalNumber {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signalNumber)"
        }
    }

    /// The exit status after `signalNumber`: 128 + its number, as shells report it.
    public static func exitStatus(for signalNumber: Int32) -> Int32 { 128 + signalNumber }

    /// The line written on standard error, without the newline and any terminal codes.
    public static func message(for signalNumber: Int32, advice: String?) -> String {
        "photogrammetry: " + reason(for: signalNumber, advice: advice)
    }

    /// The line without the program's name: "interrupted by SIGINT; run the same command ...",
    /// as a closing `interrupted` event says it.
    public static func reason(for signalNumber: Int32, advice: String?) -> String {
        "interrupted by \(name(of: signalNumber))" + (advice.map { "; \($0)" } ?? "")
    }

    // MARK: - Inside

    /// The mutable part, behind one lock.
    private final class State: @unchecked Sendable {
        struct Fields {
            package var advice: String?
            var received: Int32?
            /// Set once the process is on its way out: later signals change nothing.
            package var ending = false
            var nextID = 0
            var cleanups: [(id: Int, run: @Sendable () -> Void)] = []
            var deferrals: [(id: Int, onSignal: @Sendable (Int32) -> Void)] = []
            /// Kept alive for the process's life: a released source stops delivering.
            package var sources: [DispatchSourceSignal] = []
        }

        private let lock = NSLock()
        private var fields = Fields()

        func withLock<T>(_ body: (inout Fields) throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body(&fields)
        }

        func installOnce(_ make: () -> [DispatchSourceSignal]) {
            withLock { fields in
                if fields.sources.isEmpty { fields.sources = make() }
            }
        }
    }

    private static let state = State()
    private static let queue = DispatchQueue(label: "photogrammetry.interruption")

    /// A signal arrived (on `queue`).
    private static func take(_ signalNumber: Int32) {
        enum Action { case none, forward(@Sendable (Int32) -> Void), end(Int32) }
        let action: Action = state.withLock { state in
            if state.received == nil { state.received = signalNumber }
            if state.ending { return .none }
            if let deferral = state.deferrals.last { return .forward(deferral.onSignal) }
            state.ending = true
            return .end(state.received!)
        }
        switch action {
        case .none: break
        case .forward(let onSignal): onSignal(signalNumber)
        case .end(let first): end(first)
        }
    }

    /// `deferring`'s body is done: end the process if a signal came meanwhile and no outer
    /// deferral still holds it.
    private static func endDeferral(_ id: Int) {
        let signalNumber: Int32? = state.withLock { state in
            state.deferrals.removeAll { $0.id == id }
            guard state.deferrals.isEmpty, !state.ending, let received = state.received else { return nil }
            state.ending = true
            return received
        }
        if let signalNumber { end(signalNumber) }
    }

    /// Runs the cleanups, writes the line, and ends the process.
    private static func end(_ signalNumber: Int32) -> Never {
        let (cleanups, advice) = state.withLock { ($0.cleanups, $0.advice) }
        for cleanup in cleanups.reversed() { cleanup.run() }
        fflush(stdout)
        // On a terminal, first clear the progress line a stage may have left.
        let clear = isatty(2) != 0 ? "\r\u{1B}[2K" : ""
        let line = Array((clear + message(for: signalNumber, advice: advice).escapingControlCharacters + "\n").utf8)
        _ = line.withUnsafeBytes { writeAll(2, $0) }
        _exit(exitStatus(for: signalNumber))
    }
}
