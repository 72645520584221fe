/// Everything a reconstruction run can be told; each stage's options nest here.
public struct ReconstructionOptions: Sendable {
    /// Detail level of dense and mesh work (`preview` ... `raw`). Default full.
    public var detail = "full"
    /// Stop after the sparse model. Default false.
    public var sparseOnly = false
    /// The room is the subject (walk-through capture). Default false.
    public var room = false
    /// Pinhole intrinsics to hold fixed, from `--intrinsics`. Default nil (self-calibrate).
    public var fixedIntrinsics: FixedIntrinsics?
    /// Worker threads for every parallel stage. Default 2.
    public var numThreads = 2
    /// Seed of every randomised step, so runs repeat exactly. Default 0.
    public var seed: UInt64 = 0
    /// Camera model to self-calibrate when intrinsics are not fixed. Default SIMPLE_RADIAL.
    public var cameraModel = CameraModel.simpleRadial
    /// Stage 2.
    public var sift = SIFTOptions()
    /// Stage 3.
    public var matching = MatchingOptions()
    /// Stage 4.
    public var mapper = MapperOptions()

    public init() {}

    /// Throws the first option that is out of range.
    public func validate() throws {
        let levels = ["preview", "reduced", "medium", "full", "raw"]
        guard levels.contains(detail) else {
            throw PipelineError.invalidOption("--detail must be one of \(levels.joined(separator: ", "))")
        }
        guard numThreads >= 1 && numThreads <= 256 else {
            throw PipelineError.invalidOption("--threads must be between 1 and 256")
        }
        try sift.validate()
        try matching.validate()
        try mapper.validate()
    }
}
