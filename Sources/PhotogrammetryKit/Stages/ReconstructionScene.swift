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
    /// Where the capture's depth images are (a `depth/` folder; HEIC depth items need none).
    public var depth = CaptureDepth(folder: nil)
    /// The pose priors of the capture's images (`transforms.json`), if the run uses any.
    public var priors: PosePriors?
    /// The images left after features (failed, blank and blurred frames out), in index order.
    public var usable = Capture(imageRoot: URL(fileURLWithPath: "/"), root: URL(fileURLWithPath: "/"), images: [], rejected: [])
    /// Features of each image of `usable`.
    public var features: [FeatureSet] = []
    /// The SIFT options the features were extracted with (after the resolution rule).
    public var siftOptions = SIFTOptions()
    /// Cameras and which image uses which.
    public var setup: CameraSetup?
    /// The verified pairs (and the static features of a fixed camera).
    public var matching: PairMatching.Result?
    /// Whether a fixed camera took the capture (a turntable).
    public var turntable = false
    /// Every model, largest first.
    public var models: [Reconstruction] = []
    /// With pose priors: per model, how it was put in the priors' frame (nil: it was not).
    public var priorAlignments: [PriorAlignment?] = []
    /// The key of what the stages so far made (chained: each stage's key hashes the one before).
    public var key = ""
    /// What the run found, as `report.json`.
    public var report = Report()

    public init() {}

    /// The largest model.
    public var model: Reconstruction { models.first ?? Reconstruction() }
}
