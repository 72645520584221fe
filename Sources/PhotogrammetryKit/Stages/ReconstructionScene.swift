import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// What the stages have found so far: each stage reads what earlier ones put here and adds its own.
public final class ReconstructionScene {
    /// The capture as ingest found it (every usable file, and the rejected ones).
    public var capture = Capture(imageRoot: URL(fileURLWithPath: "/"), root: URL(fileURLWithPath: "/"), images: [], rejected: [])
    /// The contents of the capture's images and masks, hashed: where every checkpoint key starts.
    public var contentDigest = ""
    /// The masks the run uses, if any.
    public var masks: MaskSource?
    /// The sparse passes' results under the automatic masks, and the pose check's reason to set
    /// them aside, while the passes run again without them; nil otherwise.
    var maskedPasses: (state: SparsePassState, failure: String)?
    /// The automatic masks were rejected by the pose check: the sparse passes run again without
    /// them (``MaskCheckStage``).
    public var automaticMasksRejected: Bool { maskedPasses != nil }
    /// Where the capture's depth images are (a `depth/` folder; HEIC depth items need none).
    public var depth = CaptureDepth(folder: nil)
    /// The pose priors of the capture's images (`transforms.json`), if the run uses any.
    public var priors: PosePriors?
    /// The printed markers the run measures scale with (`--markers`, `markers.json`), if any.
    public var markers: CaptureMarkers?
    /// The images left after features (failed, blank and blurred frames out), in index order.
    public var usable = Capture(imageRoot: URL(fileURLWithPath: "/"), root: URL(fileURLWithPath: "/"), images: [], rejected: [])
    /// Features of each image of `usable`.
    public var features: [FeatureSet] = []
    /// The SIFT options the features were extracted with (after the resolution rule).
    public var siftOptions = SIFTOptions()
    /// Cameras and which image uses which.
    public var setup: CameraSetup?
    /// The verified pairs (and the static features of a fixed camera); after the second
    /// matching pass, with the pairs it added.
    public var matching: PairMatching.Result?
    /// The verified pairs the second matching pass added (0 when it did not run): SfM runs
    /// again only on a graph that grew.
    public var rematchedPairs = 0
    /// The finer-features pass: every usable image's features, the chosen images' with their
    /// finer octave added (nil until the pass runs).
    public var finerFeatures: [FeatureSet]?
    /// The images the finer-features pass chose (indices into `usable`), ascending.
    public var finerImages: [Int] = []
    /// The graph with the chosen images' pairs matched again on their finer features (nil until
    /// that runs).
    public var finerMatching: PairMatching.Result?
    /// Whether a fixed camera took the capture (a turntable).
    public var turntable = false
    /// Every model, largest first.
    public var models: [Reconstruction] = []
    /// With pose priors: per model, how it was put in the priors' frame (nil: it was not).
    public var priorAlignments: [PriorAlignment?] = []
    /// The largest model's located markers in its frame as the metric scale left it (scaled with
    /// it): what `--marker-frame` ties the model's frame to. Empty without markers.
    public var boardMarkers: [MarkerScale.MeasuredMarker] = []
    /// Whether a stage whose failure does not stop the run (dense, surface, model) failed: the
    /// report then says the run is incomplete.
    public var incomplete = false
    /// The key of what the stages so far made (chained: each stage's key hashes the one before).
    public var key = ""
    /// What the run found, as `report.json`.
    public var report = Report()

    public init() {}

    /// The largest model.
    public var model: Reconstruction { models.first ?? Reconstruction() }

    /// Whether the largest model leaves usable images out: what the passes after the first SfM
    /// try to bring in.
    public var modelLeavesImagesOut: Bool { model.registeredImageIDs.count < usable.images.count }
}
