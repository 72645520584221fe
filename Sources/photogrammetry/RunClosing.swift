import Foundation
import PhotogrammetryCore

/// A command's last progress line (``ProgressPrinter/close(_:)``): `failed` when its work
/// throws, `interrupted` when SIGINT or SIGTERM ends it; the work closes with `finished` itself,
/// once it has written everything.
enum RunClosing {
    /// Runs `body` with `printer` closed as `failed` if it throws (the error line the command
    /// then prints) and as `interrupted` if a signal ends the process meanwhile.
    static func run<T>(_ printer: ProgressPrinter, _ body: () throws -> T) throws -> T {
        let token = Interruption.register { [printer] in
            let signal = Interruption.received ?? SIGINT
            printer.close(.interrupted(signal: signal, message: Interruption.reason(for: signal, advice: Interruption.advice)))
        }
        defer { Interruption.unregister(token) }
        do {
            return try body()
        } catch {
            printer.close(.failed("\(error)"))
            throw error
        }
    }

    /// Runs `body` as a command's one stage `name`, after the stages `before` that announced
    /// their own: its number in the plan, its start, heartbeats while it works, its end.
    static func stage<T>(_ name: String, after before: [String] = [], _ printer: ProgressPrinter,
                         _ body: () throws -> T) rethrows -> T {
        printer.plan(RunPlan(stages: before + [name], shares: before.map { _ in 1 } + [1], current: before.count))
        printer.event(.stageStarted, "\(name): started", subject: name)
        let start = ProgressPrinter.now()
        let result = try body()
        printer.finished(stage: name, seconds: ProgressPrinter.now() - start)
        return result
    }

    /// The outputs that exist among `candidates` (name, file or folder), for a `finished` line.
    static func existing(_ candidates: [(String, URL)]) -> [String: String] {
        var outputs: [String: String] = [:]
        for (name, url) in candidates where FileManager.default.fileExists(atPath: url.path) { outputs[name] = url.path }
        return outputs
    }

    /// "model_glb" for x.glb: a model file's name in a `finished` line's outputs.
    static func modelOutputName(_ url: URL) -> String { "model_" + url.pathExtension.lowercased() }
}
