import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

/// Stage 13: every model stood upright (``Reconstruction/uprightTransform(gravity:)``: +Y up,
/// centred, the first photo's side on +Z), as USD and ARKit take a model; with `--marker-frame`,
/// the largest model put in the frame of its printed marker board instead (``MarkerFrame``:
/// origin and +Y on the board). Skipped for a model in the pose priors' frame, which is kept as given.
public struct UprightStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// Tie the largest model's frame to the printed marker board (`--marker-frame`). Default false.
        public var markerFrame = false

        public init() {}

        /// Empty without the marker frame, so that a run without it keeps the key it had before it existed.
        public var keyText: String { markerFrame ? "marker_frame" : "" }

        public func validate() throws {}
    }

    /// Per model, the rigid motion that stood it upright (nil: left as it was); the largest
    /// model's board frame when it was used, else why not (with `--marker-frame`).
    public struct Output: Codable {
        public var motions: [Similarity3?]
        /// The marker board's frame, when the largest model was put in it.
        public var markerFrame: MarkerFrame?
        /// Why the largest model is not in the marker board's frame although it was asked for.
        public var markerFrameNote: String?
    }

    public static let name = "upright"
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Not in the pose priors' frame.
    public func hasWork(_ scene: ReconstructionScene) -> Bool { (scene.priorAlignments.first ?? nil) == nil }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        var output = Output(motions: scene.models.map { $0.uprightTransform() })
        guard options.markerFrame, !scene.models.isEmpty else { return output }
        let model = scene.models[0]
        let centres = model.registeredImageIDs.compactMap { model.images[$0]?.camFromWorld?.centerInWorld }
        do {
            let frame = try MarkerFrame.fit(scene.boardMarkers, cameraCentres: centres)
            output.motions[0] = frame.transform
            output.markerFrame = frame
        } catch let unfit as MarkerFrame.Unfit {
            output.markerFrameNote = unfit.description + "; the model is stood upright instead"
        }
        return output
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        guard output.motions.count == scene.models.count else { throw PipelineError.io("upright checkpoint does not fit the models") }
        scene.models = zip(scene.models, output.motions).map { model, motion in motion.map(model.transformed(by:)) ?? model }
        scene.report.modelFrameNote = output.markerFrameNote
        if let frame = output.markerFrame {
            scene.report.modelFrame = "marker_board"
            context.progress?.event(.markerFrame, String(format: "model frame: the marker board, fitted to %d markers (corners %.2g "
                                                         + "model units RMS off its plane), +X along marker %d", frame.markers,
                                                         frame.planeRMS, frame.axisMarkerID))
        } else {
            scene.report.modelFrame = output.motions.first.flatMap { $0 } == nil ? "reconstruction" : "upright"
            if let note = output.markerFrameNote { context.progress?.event(.markerFrameUnavailable, "no marker frame: " + note) }
        }
    }
}
