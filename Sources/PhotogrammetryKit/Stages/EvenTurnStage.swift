import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Stage 9a: a turntable posed as one even turn, when its masked passes left most frames out.
///
/// A texture-poor object before a busy backdrop gives the mapper too few right matches to hold
/// any free pose, under masks or not (docs/algorithms/turntable.md). A fixed camera and an
/// evenly turning plate leave four unknowns for the whole capture, which point tracks inside the
/// masks fix (``EvenTurnSolver``). Tried only on a fixed camera with per-frame masks (automatic
/// or the user's) whose largest model holds fewer than half of the frames, in capture order:
/// a model the mapper made of most frames is its own evidence and stays. A turn the solver
/// refuses (a cut to another object, too few observations fitting) leaves the mapper's model.
public struct EvenTurnStage: CheckpointedStage {
    public struct Options: StageOptions {
        /// The solve.
        public var solver = EvenTurnSolver.Options()
        /// Frames a turn needs. Default 8: fewer give the grid of starts too little to judge.
        public var minFrames = 8

        public init() {}

        public var keyText: String { "solver=(\(solver.keyText)) frames=\(minFrames)" }

        public func validate() throws {
            guard minFrames >= 3 else { throw PipelineError.invalidOption("even turn: minFrames must be at least 3") }
            guard !solver.inlierThresholds.isEmpty, solver.inlierThresholds.allSatisfy({ $0 > 0 }) else {
                throw PipelineError.invalidOption("even turn: inlier thresholds must be positive")
            }
        }
    }

    /// The turn's model when it stands, and what the report says either way.
    public struct Output: Codable {
        public var model: Reconstruction?
        public var note: String
    }

    public static let name = "even-turn"
    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public func hasWork(_ scene: ReconstructionScene) -> Bool {
        let images = scene.usable.images
        guard scene.turntable, images.count >= options.minFrames, 2 * scene.model.registeredImageIDs.count < images.count,
              let setup = scene.setup, Set(setup.cameraOfImage).count == 1, let masks = scene.masks else { return false }
        return images.allSatisfy { masks.maskURL(for: $0) != nil }
    }

    public func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output {
        let images = scene.usable.images
        guard let setup = scene.setup, let masks = scene.masks,
              let camera = setup.cameras.first(where: { $0.id == setup.cameraOfImage.first }) else {
            throw PipelineError.io("\(Self.name): matching did not run")
        }
        _ = context.progress?.update(stage: Self.name, done: 0, total: 1)
        let result = try EvenTurnSolver.solve(images: images.map(\.url), masks: images.compactMap { masks.maskURL(for: $0) },
                                              focalLength: camera.meanFocalLength, principalPoint: camera.principalPoint,
                                              longerSide: Double(camera.longerSide),
                                              options: options.solver, threads: context.threads)
        _ = context.progress?.update(stage: Self.name, done: 1, total: 1)
        let found = String(format: "focal length %.1f px, %.2f° a frame%@, %d tracks, %.0f %% of their observations fit",
                           result.motion.focalLength, abs(result.motion.angles[1] - result.motion.angles[0]) * 180 / .pi,
                           result.steps == .evenClosed ? " (one whole turn)" : "", result.trackCount, 100 * result.inlierShare)
        if let refusal = result.refusal {
            return Output(model: nil, note: "not one even turn: \(refusal) (\(found)); the mapper's model stays")
        }
        return Output(model: result.model(camera: camera, names: images.map(\.name)),
                      note: "posed as one even turn: \(found); the mapper's largest model held "
                          + "\(scene.model.registeredImageIDs.count) of \(images.count) frames")
    }

    public func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws {
        scene.report.evenTurn = output.note
        context.progress?.event(.evenTurn, output.note)
        if let model = output.model { scene.models = [model] }
    }
}
