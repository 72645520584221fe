import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse
import PhotogrammetryDense

/// Everything a reconstruction run can be told; each stage's options nest here.
public struct ReconstructionOptions: Sendable {
    /// Detail level of dense and mesh work (`preview` ... `raw`). Default full.
    public var detail = DetailLevel.full
    /// Stop after the sparse model. Default false.
    public var sparseOnly = false
    /// The room is the subject (walk-through capture). Default false.
    public var room = false
    /// Planar priors in the dense stage's PatchMatch (`--planar-priors on|off`); nil (auto): on for
    /// rooms (``DenseStage/Options/planarPriors`` says why). Default nil.
    public var planarPriors: Bool? = nil
    /// Which masks restrict features (and later dense and mesh work). Default automatic.
    public var mask = MaskSelection.automatic
    /// Masks of a fixed camera's frames from their own background, when there are none (`--auto-mask`).
    public var automaticMasks = FixedCameraSegmentation.Options()
    /// How a video input's keyframes are chosen (`--keyframes N` sets the target count).
    public var keyframes = KeyframeSelection.Options()
    /// Frames whose blur score is below this fraction of the capture's median are rejected as
    /// blurred (0 keeps every frame). Default 0.3.
    public var blurFloorFraction = 0.3
    /// Frames whose grey levels vary less than this (standard deviation, intensity in [0, 1])
    /// are rejected as blank. Default 1/255: less than one grey level of an 8-bit file, a frame
    /// that holds no structure at the precision it was stored with.
    public var blankContrast = 1.0 / 255
    /// A phone's depth images join the dense cloud where the photographs' depth maps are empty
    /// (`--sensor-depth`); false uses them for the metric scale alone. Default true.
    public var sensorDepth = true
    /// A room's envelope is closed on its planes where the views matched nothing
    /// (`--close-envelope`); false leaves the mesh to what they matched. Default true.
    public var closeEnvelope = true
    /// Where pose priors come from (`--priors`). Default automatic.
    public var priors = PriorSelection.automatic
    /// Printed markers of known size that give the model its metres (`--markers`). Default nil:
    /// a `markers.json` beside the images, if any.
    public var markers: MarkerSpec?
    /// The scale the user states (`--scale`, `--known-distance`), before every other source. Default nil.
    public var userScale: UserScale?
    /// Tie the model's frame to the printed marker board (`--marker-frame`): needs markers. Default false.
    public var markerFrame = false
    /// Pinhole intrinsics to hold fixed, from `--intrinsics`. Default nil (self-calibrate).
    public var fixedIntrinsics: FixedIntrinsics?
    /// Worker threads for every parallel stage. Default 2.
    public var numThreads = 2
    /// Seed of every randomised step, so runs repeat exactly. Default 0.
    public var seed: UInt64 = 0
    /// Camera model to self-calibrate when intrinsics are not fixed (`--camera-model`). Default
    /// nil: SIMPLE_RADIAL, or SIMPLE_RADIAL_FISHEYE for a fisheye-short EXIF focal length.
    public var cameraModel: CameraModel?
    /// Stage 2.
    public var sift = SIFTOptions()
    /// Stage 2: full resolution for captures of few views.
    public var featureResolution = FeatureResolution()
    /// Stages 3, 5 and 8.
    public var matching = MatchingOptions()
    /// Stages 4, 6 and 9 (and what counts as a sequence in 7).
    public var mapper = MapperOptions()
    /// Stage 7: which images get finer features (`enabled` false skips stages 7-9).
    public var finerFeatures = FinerFeatures()
    /// Stage 15; its detail, threads and seed are set from the fields above.
    public var dense = DenseOptions()
    /// Stage 16; its detail, room and threads are set from the fields above.
    public var surface = SurfaceOptions()
    /// Stage 17; its page size comes from the detail level, threads from above.
    public var texture = TextureOptions()
    /// Stop after the dense cloud: no surface, no texture, no model files. Default false.
    public var noMesh = false
    /// The largest image decoded (`--max-megapixels`), for the whole run. Default the core's.
    public var decodeLimits = DecodeLimits()

    public init() {}

    /// The worker thread counts accepted (``numThreads``; `--threads` of every command): the
    /// range the core's parallel stages take (Poisson, fusion and PatchMatch refuse more than 256).
    public static let threadCounts = 1...256

    /// The one message for a thread count outside ``threadCounts`` or not a whole number.
    public static func threadCountMessage(_ given: String) -> String {
        "--threads \(given): want an integer from \(threadCounts.lowerBound) to \(threadCounts.upperBound)"
    }

    /// Throws the first option that is out of range.
    public func validate() throws {
        guard Self.threadCounts.contains(numThreads) else {
            throw PipelineError.invalidOption(Self.threadCountMessage("\(numThreads)"))
        }
        for stage in ReconstructionPipeline.stages(self) { try stage.validate() }
    }
}

/// Where masks come from.
public enum MaskSelection: Sendable, Equatable {
    /// A `masks/` folder or `mask.json` the capture carries, if any (not for rooms).
    case automatic
    /// No masks, even when the capture carries some (`--mask none`).
    case disabled
    /// The masks given with `--mask`.
    case given(MaskSource)
}

/// Where pose priors come from.
public enum PriorSelection: Sendable, Equatable {
    /// A `transforms.json` beside the images (in the image folder or a folder above it), else
    /// a video's `arkitData.json` (``ARKitScan``), if any.
    case automatic
    /// No priors, even when the capture carries a `transforms.json` (`--priors none`).
    case disabled
    /// The file given with `--priors`.
    case given(URL)
}
