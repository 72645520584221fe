import Foundation
import PhotogrammetryCore
import PhotogrammetryIO
import PhotogrammetrySparse

/// The pipeline as a numbered list of stages over one scene.
///
/// Each stage (`Stages/`) has its options, a run and one output; ``stages(_:)`` below is the
/// whole order, and every stage runs through one frame (`+Stages`): its key, checkpoint, time,
/// peak memory and events. A stage's output is keyed by its options and the key of everything before it (which
/// starts from the contents of the images), and the checkpointed ones are saved under that key
/// in `work/checkpoints/`: a rerun of the same command resumes at the first stage whose key has
/// no checkpoint, and a changed option reruns that stage and those after it.
public final class ReconstructionPipeline {
    public let input: URL
    /// Where every output goes.
    public let layout: OutputLayout
    /// The folder of the run's files (`layout.root`).
    public var output: URL { layout.root }
    public let options: ReconstructionOptions
    let progress: ProgressSink?
    /// What the stages have found so far.
    let scene = ReconstructionScene()
    /// What every stage reads besides the scene.
    let context: StageContext
    /// Where stage outputs are saved.
    let checkpoints: CheckpointStore
    /// The stage running now, which a failure is reported against; nil between stages.
    var runningStage: String?
    /// The run's list of steps and the position of the one performed now, for the plan a stage
    /// announces (``ReconstructionPipeline/runPlan(starting:)``).
    var steps: [PipelineStep] = []
    var stepPosition = 0
    /// The stages that have run (or resumed) so far, in order.
    var stagesRun: [String] = []

    public convenience init(input: URL, output: URL, options: ReconstructionOptions, progress: ProgressSink?) {
        self.init(input: input, layout: OutputLayout(folder: output), options: options, progress: progress)
    }

    public init(input: URL, layout: OutputLayout, options: ReconstructionOptions, progress: ProgressSink?) {
        self.input = input
        self.layout = layout
        self.options = options
        self.progress = progress
        context = StageContext(threads: options.numThreads, progress: progress, layout: layout, input: input)
        checkpoints = CheckpointStore(folder: layout.checkpoints)
    }

    /// Where intermediate files live (checkpoints, unpacked zips).
    public var workDirectory: URL { layout.work }
    /// The dense stage's working folder: undistorted views, masks, depth maps and their manifest.
    public var denseDirectory: URL { layout.denseWork }
    /// The fused point cloud, `OUTPUT/dense.ply`.
    public var denseCloudURL: URL { layout.denseCloud }
    /// What the run has found so far (all of it once ``run()`` returns).
    var report: Report { scene.report }

    /// Runs the pipeline and returns the report it also wrote to `OUTPUT/report.json`; a failure
    /// is also told to the progress sink (``PipelineEvent/stageFailed``) before it is thrown.
    @discardableResult
    public func run() throws -> Report {
        // usd-core's absence (a text-layer USDZ) is told as an event, in the run's progress.
        try ModelNotices.routing(to: { [progress] line in progress?.event(.usdCoreUnavailable, line) }) {
            try announcingFailure { try runStages() }
        }
    }

    /// The pipeline, in order: one stage a line, with its skip flag. A stage the scene gives
    /// nothing to do (``ReconstructionStage/hasWork(_:)``: stages 5-10, 13) is skipped as it
    /// comes; the passes 5-9 try again only while the largest model leaves images out.
    static func stages(_ options: ReconstructionOptions) -> [PipelineStep] {
        let noMesh = options.sparseOnly || options.noMesh
        return [
            PipelineStep(IngestStage(options: options.ingestStage)),                        //  1. images, masks, priors
            PipelineStep(SegmentationStage(options: options.segmentationStage)),            // 1a. masks of a fixed camera's frames
        ] + sparsePasses(options) + [
            PipelineStep(EvenTurnStage(options: options.evenTurnStage)),                    // 9a. a turntable as one even turn
            PipelineStep(MaskCheckStage()),                                                 // 9b. automatic masks judged by their poses
        ] + sparsePasses(options, unmasked: true) + [                                       // 2'-9'. without them, if rejected
            PipelineStep(PriorAlignmentStage(options: options.priorAlignmentStage),
                         skip: options.priors == .disabled),                                // 10. into the pose priors' frame
            PipelineStep(DiagnosticsStage(options: options.diagnosticsStage)),              // 11. statistics, coverage, advice
            PipelineStep(MetricScaleStage(options: options.metricScaleStage)),              // 12. metres: user, markers, depth
            PipelineStep(UprightStage(options: options.uprightStage)),                       // 13. +Y up, centred
            PipelineStep(ExportStage()),                                                    // 14. sparse/, transforms.json
            PipelineStep(DenseStage(options: options.denseStage), skip: options.sparseOnly, mayFail: true), // 15. dense.ply
            PipelineStep(SurfaceStage(options: options.surfaceStage), skip: noMesh, mayFail: true),  // 16. surface, decimated
            PipelineStep(ModelStage(options: options.modelStage), skip: noMesh, mayFail: true),      // 17. texture, model files
            PipelineStep(ReportStage()),                                                    // 18. report.html, report.json
        ]
    }

    /// Stages 2-9: features, matching and the SfM passes; `unmasked`: the same again without the
    /// automatic masks (``UnmaskedRerun``), which run only when the pose check rejected them.
    static func sparsePasses(_ options: ReconstructionOptions, unmasked: Bool = false) -> [PipelineStep] {
        func step<S: CheckpointedStage>(_ stage: S, skip: Bool = false, countedAhead: Bool = true) -> PipelineStep {
            var step = unmasked ? PipelineStep(UnmaskedRerun(stage), skip: skip) : PipelineStep(stage, skip: skip)
            step.countedAhead = countedAhead
            return step
        }
        return [
            step(FeatureStage(options: options.featureStage)),                              //  2. SIFT; blurred frames out
            step(MatchingStage(options: options.matchingStage)),                            //  3. pairs, verification
            step(SparseStage(options: options.sparseStage)),                                //  4. SfM
            step(RematchingStage(options: options.rematchingStage),
                 skip: !options.rematchingStage.isOn, countedAhead: false),                 //  5. transitive, spatial pairs
            step(RematchedSparseStage(options: options.sparseStage), countedAhead: false),  //  6. SfM again on them
            step(FinerFeaturesStage(options: options.finerFeaturesStage),
                 skip: !options.finerFeatures.enabled, countedAhead: false),                //  7. finer SIFT for images left out
            step(FinerMatchingStage(options: options.finerMatchingStage), countedAhead: false), // 8. their pairs matched again
            step(FinerSparseStage(options: options.sparseStage), countedAhead: false),      //  9. SfM again on them
        ]
    }

    /// Runs the list. After a failure of a stage that may fail, the later ones that may are
    /// skipped, the report is written (incomplete) and the failure is thrown.
    private func runStages() throws -> Report {
        try start()
        var failure: (stage: String, error: Error)?
        steps = Self.stages(options)
        for (position, step) in steps.enumerated() {
            stepPosition = position
            do {
                try step.perform(self, step.skip || (step.mayFail && failure != nil))
            } catch let error where step.mayFail {
                failure = (step.name, error)
                scene.incomplete = true
            }
        }
        if let failure { throw reporting(failure.error, as: failure.stage) }
        // The report's thumbnails were the last read of the images: a zip's unpacked copy goes.
        CaptureLoader.removeUnpackedInput(workspace: workDirectory)
        return scene.report
    }

    /// Checks the options, prepares OUTPUT, removes what a killed run left and the last run's
    /// report, starts the report.
    func start() throws {
        try options.validate()
        // Every decode of the run, in every stage, is held to the run's limit.
        try options.decodeLimits.apply()
        try OutputFolder.refuseOverlap(input: input, output: layout.root)
        try OutputFolder.prepare(layout)
        Leftovers.remove(in: layout)
        // An earlier run's report must not outlive this run's start: if this run fails before
        // writing its own (a full disk while writing the model), its `complete: true` would
        // vouch for files this run has half replaced.
        for report in [layout.reportJSON, layout.reportHTML] { unlink(report.path) }
        scene.report.detail = options.detail.rawValue
        scene.report.input = input.standardizedFileURL.path
        scene.report.options = options.fingerprintText
        scene.report.optionsFingerprint = options.fingerprint
    }

    /// `error`, with `stage` as the running stage its announcement names.
    func reporting(_ error: Error, as stage: String) -> Error {
        runningStage = stage
        return error
    }
}
