import Foundation
import PhotogrammetryCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenUSD itself, through its Python library usd-core (module `pxr`), run as a helper process:
/// it reads every USD layer kind (text, binary crate, USDZ packages) and writes the binary
/// layer a USDZ should hold. OpenUSD is not packaged in Debian; its PyPI wheel is.
///
/// The program is ``USDCoreScript``, written into a temporary folder this process creates and
/// removes, and run there with `python3` (or the Python `PHOTOGRAMMETRY_PYTHON` names), its
/// arguments in, its results as files in that folder, a failure as one line on standard error
/// (exit 2), a missing `pxr` as exit 3. A run is bounded in time (``timeout``) and address space
/// (``memoryLimit``), and a SIGINT or SIGTERM to this process kills it and removes the folder.
///
/// When Python or `pxr` is missing, ``run(_:prepare:)`` answers ``Outcome/unavailable(_:)``
/// with the reason, and callers fall back (a text layer, the text reader) saying so in one
/// line (``ModelNotices``). The answer is kept for the process: the next model asks no more.
package enum USDCore {
    /// The environment variable naming the Python to run: a path, or a name looked up in `PATH`
    /// (`python3` when unset or empty).
    package static let pythonVariable = "PHOTOGRAMMETRY_PYTHON"
    /// The package to install, as the one-line notices say.
    package static let requirement = "usd-core==26.3"
    /// The longest a helper may run before it is killed.
    static let timeout: TimeInterval = 600
    /// The address space a helper may take (RLIMIT_AS): a hostile file whose arrays decompress
    /// to more ends the helper, not the machine.
    static let memoryLimit = 8 << 30

    /// How a helper run ended.
    package enum Outcome {
        /// It ran; its results are in the folder.
        case done(URL)
        /// Python or usd-core is missing: why, in words for the one line.
        case unavailable(String)
    }

    /// A helper's failure: its one line, or why it did not finish.
    package struct Failure: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// The Python to run, as `PHOTOGRAMMETRY_PYTHON` says.
    static var python: String {
        let given = ProcessInfo.processInfo.environment[pythonVariable] ?? ""
        return given.isEmpty ? "python3" : given
    }

    /// Runs the helper with `arguments` in a new temporary folder, after `prepare` has put its
    /// inputs there; `body` reads the results before the folder is removed.
    /// - Throws: ``Failure`` (the helper's line, a timeout, a crash), or what `prepare` or
    ///   `body` throw.
    package static func run<T>(_ arguments: (URL) -> [String], prepare: (URL) throws -> Void = { _ in },
                               _ body: (Outcome) throws -> T) throws -> T {
        let python = Self.python
        if let reason = knownUnavailable(python) { return try body(.unavailable(reason)) }
        guard let executable = executable(python) else {
            let reason = "\(python) is not found (set \(pythonVariable) to a Python with \(requirement))"
            remember(python, reason)
            return try body(.unavailable(reason))
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("photogrammetry-usd-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(message: "cannot create a temporary folder for usd-core (\(error.localizedDescription))")
        }
        let child = ChildState()
        return try Interruption.whileRunning(cleanup: {
            child.kill()
            try? FileManager.default.removeItem(at: folder)
        }) {
            defer { try? FileManager.default.removeItem(at: folder) }
            let script = folder.appendingPathComponent("usd_helper.py")
            do { try Data(USDCoreScript.source.utf8).write(to: script) } catch {
                throw Failure(message: "cannot write the usd-core helper to \(folder.path) (\(error.localizedDescription))")
            }
            try prepare(folder)
            let status = try launch(executable, [script.path] + arguments(folder), in: folder, child: child)
            let line = lastLine(of: folder.appendingPathComponent("stderr"))
            switch status {
            case .exited(0):
                return try body(.done(folder))
            case .exited(3):
                let reason = "usd-core is not installed for \(python) (pip install \(requirement))"
                remember(python, reason)
                return try body(.unavailable(reason))
            case .exited(2):
                throw Failure(message: line ?? "usd-core failed")
            case .exited(let code):
                throw Failure(message: "the usd-core helper failed (exit \(code)\(line.map { ": \($0)" } ?? ""))")
            case .signalled(let signal):
                throw Failure(message: "the usd-core helper was killed by signal \(signal) (out of memory?)")
            case .timedOut:
                throw Failure(message: "usd-core took longer than \(Int(timeout)) s")
            }
        }
    }

    /// How a child ended.
    enum Status: Equatable { case exited(Int32), signalled(Int32), timedOut }

    /// Starts the child, waits up to ``timeout`` and kills it past that.
    private static func launch(_ executable: URL, _ arguments: [String], in folder: URL, child: ChildState) throws -> Status {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-B"] + arguments  // -B: no bytecode files beside the script
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOGRAMMETRY_USD_MEMORY"] = String(memoryLimit)
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try process.run() } catch {
            throw Failure(message: "cannot start \(executable.path) (\(error.localizedDescription))")
        }
        child.started(process.processIdentifier)
        defer { child.ended() }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            child.kill()
            done.wait()
            return .timedOut
        }
        return process.terminationReason == .uncaughtSignal ? .signalled(process.terminationStatus)
            : .exited(process.terminationStatus)
    }

    /// The last non-empty line the child wrote to standard error (usd-core warns on its way, so
    /// only the last is the helper's own), at most 1000 characters.
    private static func lastLine(of url: URL) -> String? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        let text = String(decoding: data.suffix(64 << 10), as: UTF8.self)
        return text.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { String($0.prefix(1000)) }
    }

    /// `python` as an executable: a path as given, or a name found in `PATH`.
    static func executable(_ python: String) -> URL? {
        if python.contains("/") {
            return FileManager.default.isExecutableFile(atPath: python) ? URL(fileURLWithPath: python) : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(python)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    // MARK: - What this process has learnt

    private static let unavailable = LockedDictionary()

    private static func knownUnavailable(_ python: String) -> String? { unavailable[python] }
    private static func remember(_ python: String, _ reason: String) { unavailable[python] = reason }
}

/// Why each Python tried is unusable, behind a lock.
private final class LockedDictionary: @unchecked Sendable {
    private var values: [String: String] = [:]
    private let lock = NSLock()

    subscript(key: String) -> String? {
        get { lock.lock(); defer { lock.unlock() }; return values[key] }
        set { lock.lock(); values[key] = newValue; lock.unlock() }
    }
}

/// The running child's process id, for a signal's cleanup to kill it.
private final class ChildState: @unchecked Sendable {
    private var pid: pid_t?
    private let lock = NSLock()

    func started(_ id: pid_t) { lock.lock(); pid = id; lock.unlock() }
    func ended() { lock.lock(); pid = nil; lock.unlock() }

    /// SIGKILL: the helper holds nothing worth a graceful end, only files in our folder.
    func kill() {
        lock.lock()
        defer { lock.unlock() }
        if let pid { killProcess(pid) }
    }
}

/// SIGKILL to `pid` (outside the class, whose `kill` hides the C function's name).
private func killProcess(_ pid: pid_t) { _ = kill(pid, SIGKILL) }
