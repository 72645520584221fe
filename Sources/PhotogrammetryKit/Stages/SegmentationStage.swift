import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 1a: a fixed camera's frames segmented from their own background
/// (``FixedCameraSegmentation``): when the capture carries no masks and the background stands
/// still, what moves is the object, its masks go to `OUTPUT/masks/` and every later stage uses
/// them as it would a user's. A user's masks (`--mask`, `masks/`, `mask.json`) always win.
public struct SegmentationStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Whether and how masks are made (`--auto-mask`).
        public var segmentation = FixedCameraSegmentation.Options()
        /// The room is the subject: no masks. Default false.
        public var room = false

        public init() {}

        public var keyText: String { room ? "room" : segmentation.keyText }

        public func validate() throws {
            let model = segmentation.model
            guard (32...4096).contains(model.workingSide), model.maxModelFrames >= 3, model.changeThreshold > 0, model.minNoise > 0,
                  (0..<0.95).contains(model.shadowMinRatio), (0..<1).contains(model.minRegionShare) else {
                throw PipelineError.invalidOption("automatic masks: a background model option is out of range")
            }
        }
    }

    /// What the stage decided and the masks it wrote (per capture image; nil where none).
    public struct Output: Codable {
        public var summary: AutomaticMasksSummary
        public var files: [String?]
    }

    public static let name = "segmentation"
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let images = scene.capture.images
        let none = { (reason: String) in Output(summary: AutomaticMasksSummary(used: false, reason: reason), files: images.map { _ in nil }) }
        if let masks = scene.masks { return none("the run's own masks are used (\(masks.summary))") }
        if options.room { return none("a room is the subject (--room)") }
        let result = try FixedCameraSegmentation.run(capture: scene.capture, folder: context.layout.masks, options: options.segmentation,
                                                     threads: context.threads, progress: context.progress, stage: Self.name)
        return Output(summary: result.summary, files: result.files)
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        scene.report.automaticMasks = output.summary
        guard output.summary.used else {
            context.progress?.event(.automaticMasks, "no automatic masks: " + output.summary.reason)
            return
        }
        let folder = context.layout.masks
        for file in output.files.compactMap({ $0 }) where !FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path) {
            throw PipelineError.io("automatic mask \(file) is gone from \(folder.path)")
        }
        scene.masks = .directory(folder)
        context.progress?.event(.automaticMasks, String(format: "automatic masks: %@; the object keeps %.0f %% of a frame on average, "
                                                        + "written to %@", output.summary.reason,
                                                        100 * (output.summary.meanObjectShare ?? 0), folder.path))
    }
}
