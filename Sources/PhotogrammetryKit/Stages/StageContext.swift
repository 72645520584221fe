import Foundation
import PhotogrammetryCore

/// What every stage shares: threads, seed, detail level, progress, checkpoints and the layout.
public struct StageContext {
    /// Worker threads for parallel loops, bundle adjustment and dense work.
    public var threads: Int
    /// Seed of every randomised step.
    public var seed: UInt64
    /// Detail level of dense (and, later, mesh) work.
    public var detail: DetailLevel
    /// Where progress and events go; its `update` returning false cancels the run.
    public var progress: ProgressSink?
    /// Where stage outputs are saved.
    public var checkpoints: CheckpointStore
    /// Where every output goes.
    public var layout: OutputLayout
    /// The capture read (a folder or a zip).
    public var input: URL

    public init(threads: Int, seed: UInt64, detail: DetailLevel, progress: ProgressSink?, layout: OutputLayout, input: URL) {
        self.threads = threads
        self.seed = seed
        self.detail = detail
        self.progress = progress
        self.layout = layout
        self.input = input
        checkpoints = CheckpointStore(folder: layout.checkpoints)
    }
}
