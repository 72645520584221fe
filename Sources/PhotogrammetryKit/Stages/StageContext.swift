import Foundation
import PhotogrammetryCore

/// What every stage reads besides the scene: threads, progress, the layout and the input.
public struct StageContext {
    /// Worker threads for parallel loops, bundle adjustment and dense work.
    public var threads: Int
    /// Where progress and events go; its `update` returning false cancels the run.
    public var progress: ProgressSink?
    /// Where every output goes.
    public var layout: OutputLayout
    /// The capture read (a folder or a zip).
    public var input: URL

    public init(threads: Int, progress: ProgressSink?, layout: OutputLayout, input: URL) {
        self.threads = threads
        self.progress = progress
        self.layout = layout
        self.input = input
    }
}
