import Foundation

/// One line of the pipeline's list (``ReconstructionPipeline/stages(_:)``): a stage, whether the
/// run's options leave it out, and whether a failure in it leaves the run's earlier outputs as
/// they are.
///
/// Made from a stage, it runs it through the pipeline's one frame (``ReconstructionPipeline/run(_:skip:)``)
/// and gives what the options fingerprint is made of, so the list is written once.
struct PipelineStep {
    /// The stage's name.
    let name: String
    /// The run's options leave the stage out (`--sparse-only`, `--no-mesh`, a pass turned off).
    let skip: Bool
    /// A failure here does not end the run at once (dense, surface, model): the outputs before it
    /// are complete, so the steps after it that may fail alike are skipped, the report is
    /// written, saying the run is incomplete, and then the failure is thrown.
    let mayFail: Bool
    /// The stage's key after an input key (``ReconstructionStage/key(after:)``): its name, its
    /// options and the checkpoint format, hashed with the input's.
    let key: (_ after: String) -> String
    /// Whether the scene as it stands gives the stage work (``ReconstructionStage/hasWork(_:)``).
    let hasWork: (ReconstructionScene) -> Bool
    /// Whether the run's plan counts the stage before it comes (``ReconstructionPipeline/runPlan(starting:)``):
    /// false for the passes that run only when a model leaves images out, which no scene before
    /// the first model can tell; they join the count when they run.
    var countedAhead = true
    /// Checks the stage's options.
    let validate: () throws -> Void
    /// Runs, resumes or skips (`skip`) the stage in the pipeline's frame.
    let perform: (ReconstructionPipeline, _ skip: Bool) throws -> Void

    /// A stage that keeps no checkpoint.
    init<S: ReconstructionStage>(_ stage: S, skip: Bool = false, mayFail: Bool = false) {
        self.init(stage, skip: skip, mayFail: mayFail) { pipeline, skip in try pipeline.run(stage, skip: skip) }
    }

    /// A checkpointed stage.
    init<S: CheckpointedStage>(_ stage: S, skip: Bool = false, mayFail: Bool = false) {
        self.init(stage, skip: skip, mayFail: mayFail) { pipeline, skip in try pipeline.run(stage, skip: skip) }
    }

    private init<S: ReconstructionStage>(_ stage: S, skip: Bool, mayFail: Bool,
                                          perform: @escaping (ReconstructionPipeline, Bool) throws -> Void) {
        name = S.name
        self.skip = skip
        self.mayFail = mayFail
        key = { stage.key(after: $0) }
        hasWork = { stage.hasWork($0) }
        validate = { try stage.options.validate() }
        self.perform = perform
    }
}
