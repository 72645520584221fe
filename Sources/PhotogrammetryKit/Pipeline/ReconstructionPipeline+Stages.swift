import Foundation
import PhotogrammetryCore

/// How the pipeline runs one stage: its key, its checkpoint, its time and memory, its events.
extension ReconstructionPipeline {
    /// Runs a stage that keeps no checkpoint.
    func run<S: ReconstructionStage>(_ stage: S, skip: Bool = false) throws {
        try perform(stage, skip: skip) { _ in
            try stage.apply(try stage.run(scene, context), to: scene, context)
            return false
        }
    }

    /// Runs a checkpointed stage: its output from the checkpoint under its key when there is one
    /// that still applies (then it is resumed), else from a run, saved under the key.
    func run<S: CheckpointedStage>(_ stage: S, skip: Bool = false) throws {
        try perform(stage, skip: skip) { key in
            if let saved = checkpoints.load(S.Output.self, stage: S.name, key: key) {
                do {
                    try stage.apply(saved, to: scene, context)
                    return true
                } catch let error as PipelineError {
                    if case .tooFewImages = error { throw error }
                    // A file the checkpoint names is gone: the stage runs.
                }
            }
            let output = try stage.run(scene, context)
            try checkpoints.save(output, stage: S.name, key: key)
            try stage.apply(output, to: scene, context)
            return false
        }
    }

    /// The frame of every stage: skip flag (and a scene that gives the stage nothing to do),
    /// events, key chaining, seconds and peak memory. A skipped stage leaves the key as it was.
    /// - Parameter body: runs or resumes the stage under its key; returns whether it resumed.
    private func perform<S: ReconstructionStage>(_ stage: S, skip: Bool, _ body: (String) throws -> Bool) throws {
        if skip || !stage.hasWork(scene) {
            if S.listedWhenSkipped { scene.report.stages.append(Report.Stage(name: S.name, seconds: 0, skipped: true)) }
            return
        }
        runningStage = S.name
        progress?.plan(runPlan(starting: S.name))
        stagesRun.append(S.name)
        progress?.event(.stageStarted, "\(S.name): started", subject: S.name)
        PeakMemory.reset()
        let start = DispatchTime.now()
        let key = stage.key(after: scene.key, digest: stage.inputDigest(scene, context))
        let recorded = scene.report.stages.count
        let resumed = try body(key)
        scene.key = stage.outputKey(key, scene)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let record = Report.Stage(name: S.name, seconds: seconds, peakMemoryMB: PeakMemory.megabytes(), resumed: resumed)
        // The report stage wrote its own line into report.json; this one replaces it in memory.
        if scene.report.stages.count > recorded, scene.report.stages.last?.name == S.name { scene.report.stages.removeLast() }
        scene.report.stages.append(record)
        if resumed {
            progress?.event(.stageResumed, "\(S.name): resumed from the checkpoint of an earlier run", subject: S.name)
        }
        progress?.finished(stage: S.name, seconds: seconds)
        runningStage = nil
    }

    /// The plan as `stage` starts: the stages run so far, this one, and the later steps the
    /// options leave in and the scene as it stands gives work, but for the passes that run only
    /// when a model leaves images out (``PipelineStep/countedAhead``), which count when they run;
    /// each with its typical share (``StageCostShares``).
    func runPlan(starting stage: String) -> RunPlan {
        // Runs outside the list's loop (``runMatching(transitive:)``) find their step by name.
        if let position = steps.indices.dropFirst(stepPosition).first(where: { steps[$0].name == stage }) {
            stepPosition = position
        }
        let later = steps.dropFirst(stepPosition + 1).filter { $0.countedAhead && !$0.skip && $0.hasWork(scene) }.map(\.name)
        let names = stagesRun + [stage] + later
        return RunPlan(stages: names, shares: names.map { StageCostShares.share(of: $0, at: options.detail) },
                       current: stagesRun.count)
    }
}
