import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The events a run sends besides those of single stages: its failure.
extension ReconstructionPipeline {
    /// Runs `body` with `name` as the running stage, which a failure inside is reported against.
    func within<T>(_ name: String, _ body: () throws -> T) throws -> T {
        runningStage = name
        let result = try body()
        runningStage = nil
        return result
    }

    /// Runs `body`; when it throws, tells the progress sink (too few images, or the stage that
    /// failed and why) and throws the same error, so a program reading the JSON lines learns of
    /// the failure from them too, not only from standard error.
    /// A failed allocation is said as the stage that ran out of memory and what to change.
    func announcingFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            var error = error
            if (error as? CVisionError)?.code == .outOfMemory {
                error = MemoryBudget.outOfMemory(in: runningStage ?? "setup", error)
            }
            if case PipelineError.tooFewImages = error {
                progress?.event(.tooFewImages, "\(error)")
            } else {
                let stage = runningStage ?? "setup"
                progress?.event(.stageFailed, "\(stage) failed: \(error)", subject: stage)
            }
            runningStage = nil
            throw error
        }
    }
}
