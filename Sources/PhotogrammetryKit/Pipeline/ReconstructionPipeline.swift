import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// The pipeline as a numbered list of stages over one scene.
///
/// Each stage (`Stages/`) has its options, a run and one output; `run()` below is the whole
/// order. A stage's output is keyed by its options and the key of everything before it (which
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
    /// What every stage shares.
    let context: StageContext
    /// The stage running now, which a failure is reported against; nil between stages.
    var runningStage: String?

    public convenience init(input: URL, output: URL, options: ReconstructionOptions, progress: ProgressSink?) {
        self.init(input: input, layout: OutputLayout(folder: output), options: options, progress: progress)
    }

    public init(input: URL, layout: OutputLayout, options: ReconstructionOptions, progress: ProgressSink?) {
        self.input = input
        self.layout = layout
        self.options = options
        self.progress = progress
        context = StageContext(threads: options.numThreads, seed: options.seed, detail: options.detail, progress: progress,
                               layout: layout, input: input)
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
        try announcingFailure { try runStages() }
    }

    /// The stages of ``run()``, in order; each line runs one, or skips it when its flag is set.
    private func runStages() throws -> Report {
        try start()
        try run(IngestStage(options: options.ingestStage))                  // 1. images, masks
        try run(FeatureStage(options: options.featureStage))                // 2. SIFT; blurred frames out
        try run(MatchingStage(options: options.matchingStage))              // 3. pairs, verification
        try run(SparseStage(options: options.sparseStage))                  // 4. SfM (+ second pass)
        try run(DiagnosticsStage(options: options.diagnosticsStage))        // 5. coverage, advice
        try run(ExportStage(options: options.exportStage))                  // 6. metres; sparse/, transforms.json
        let dense = failure { try run(DenseStage(options: options.denseStage), skip: options.sparseOnly) } // 7. dense.ply
        let noMesh = options.sparseOnly || options.noMesh || dense != nil
        var meshStage = SurfaceStage.name
        let mesh = failure {
            try run(SurfaceStage(options: options.surfaceStage), skip: noMesh)  // 8. surface, decimated
            meshStage = ModelStage.name
            try run(ModelStage(options: options.modelStage), skip: noMesh)      // 9. texture, model files
        }
        try run(ReportStage(options: .init(complete: dense == nil && mesh == nil)))  // 10. report.html, report.json
        if let dense { throw reporting(dense, as: DenseStage.name) }
        if let mesh { throw reporting(mesh, as: meshStage) }
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

    /// Runs `body`; a failure other than a cancel is returned instead of thrown (the dense
    /// stage's: the report is still written, then the failure thrown).
    func failure(_ body: () throws -> Void) -> Error? {
        do {
            try body()
            return nil
        } catch PipelineError.cancelled {
            return PipelineError.cancelled
        } catch {
            return error
        }
    }

    /// `error`, with `stage` as the running stage its announcement names.
    func reporting(_ error: Error, as stage: String) -> Error {
        runningStage = stage
        return error
    }
}
