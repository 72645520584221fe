import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of incremental structure from motion; defaults follow COLMAP's where they fit.
public struct MapperOptions: Sendable {
    /// Initial pair: minimum number of points it must triangulate; halved while no pair has as
    /// many, down to absolutePoseMinNumInliers (weak texture). Default 100.
    public var initMinNumPoints = 100
    /// Initial pair: triangulation angles (degrees) tried in turn, strictest first. Default 16, 8, 4.
    public var initMinTriangulationAnglesDeg: [Double] = [16, 8, 4]
    /// Initial pair: how many of the best-connected pairs are examined. Default 40.
    public var initMaxCandidatePairs = 40

    /// Registration: PnP reprojection threshold in pixels. Default 4.
    public var absolutePoseMaxErrorPx = 4.0
    /// Registration: minimum PnP inliers. Default 30.
    public var absolutePoseMinNumInliers = 30
    /// Registration: minimum inlier ratio of the 2D-3D correspondences. Default 0.25.
    public var absolutePoseMinInlierRatio = 0.25
    /// Registration: attempts per image before it is given up until it sees more triangulated
    /// points than at its last failure. Default 3.
    public var maxRegistrationTrials = 3

    /// Registration from a pair (``IncrementalMapper/registerByRelativePose()``, when PnP can
    /// register nothing): verified matches the pair's essential matrix needs. Default 15, the
    /// fewest two-view verification keeps. 0 turns it off.
    public var relativeRegistrationMinMatches = 15
    /// Registration from a pair: triangulated points that must agree on the distance travelled.
    /// Default 8: one unknown, so eight points within the PnP threshold leave little to chance.
    public var relativeRegistrationMinPoints = 8
    /// Registration from a pair in a sequence (a video, photos in order: at least this share of
    /// consecutive images verified together): when too few points see the frame to fix the
    /// distance travelled, the step its neighbour made from the frame before is taken (constant
    /// speed), and bundle adjustment then refines it with the points the pair triangulates.
    /// Default 0.5, as pair selection's ``PairSelectionOptions/sequenceFraction``; above 1 turns
    /// it off.
    public var motionPriorSequenceFraction = PairSelectionOptions().sequenceFraction
    /// Around frames registered at their sequence's speed, bundle adjustment holds consecutive
    /// frames near constant velocity: a camera centre's second difference of this fraction of
    /// the local step costs one sigma
    /// (Cauchy at one sigma, so a real change of speed or a turn pays little). Default 0.5:
    /// pavilion-outer's true centres (a flown camera that slows and speeds up, steps from 0.37 to
    /// 1.95 times the one before) have second differences of 0.11 of the step (median), 0.39 (90th
    /// percentile) and 0.96 at most, a fifth of a sigma to two; a frame that bundle adjustment slid
    /// onto its neighbour (a second difference of a whole step) costs two sigmas, as much as the
    /// worst true turn, so the points decide wherever they can.
    public var motionPriorSigmaFraction = 0.5

    /// Registration from a pose prior (``IncrementalMapper/registerFromPrior()``, when neither
    /// PnP nor a pair can register anything): inliers the prior pose, refined against the
    /// model's points, must reproject within the PnP threshold. Default 10: the prior gives the
    /// six unknowns a start, so ten points (twenty equations) check it with room for noise,
    /// where PnP without one asks 30. 0 turns it off.
    public var priorRegistrationMinInliers = 10

    /// Tracks: a component of the matches that holds two keypoints of one image is split into
    /// consistent tracks rather than dropped (``TrackSet``). Default false: splitting lifts a walk
    /// around a room a little (AUC@1 96.4 → 97.3: the dropped components are the long ones that
    /// tie its ends together) but the greedy split also makes wrong tracks, and their pull on the
    /// principal point turns every camera alike: on video-orbit the principal point lands 0.44 px
    /// off and AUC@1 falls from 98.5 to 92.2; pavilion-outer's AUC@5 falls from 28.5 to 20.0
    /// (docs/benchmarks.md).
    public var splitInconsistentTracks = false
    /// While the model grows, every global bundle adjustment is preceded by track completion and
    /// retriangulation (``IncrementalMapper/completeAndRetriangulate()``), as COLMAP's mapper
    /// completes and merges tracks around its global refinements: observations that the poses
    /// of their time rejected join their points once the poses are better, so tracks grow long
    /// before the last adjustment rather than only in it. Default true.
    public var retriangulateBeforeGlobalBundle = true

    /// Triangulation: minimum ray angle in degrees. Default 1.5.
    public var triangulationMinAngleDeg = 1.5
    /// Triangulation and track continuation: reprojection threshold in pixels. Default 4.
    public var triangulationMaxErrorPx = 4.0

    /// Filtering after bundle adjustment: reprojection threshold in pixels. Default 4.
    public var filterMaxReprojectionErrorPx = 4.0
    /// Filtering: minimum triangulation angle of a point in degrees. Default 1.5.
    public var filterMinTriangulationAngleDeg = 1.5

    /// Local bundle adjustment: how many registered neighbours are refined with a new image. Default 6.
    public var localBundleNumImages = 6
    /// Local bundle adjustment: at most this many Levenberg-Marquardt iterations. Default 25 (COLMAP's).
    public var localBundleMaxIterations = 25
    /// Local bundle adjustment stops when an iteration lowers the cost by less than this fraction.
    /// Default 1e-6, as global adjustment. 1e-4 halves local iterations for little time saved,
    /// but on a single-ring turntable (lowtex-turntable) the principal point then drifts and the
    /// poses fail (docs/benchmarks.md).
    public var localBundleFunctionTolerance = 1e-6
    /// Global bundle adjustment runs when the model has grown by this factor since the last. Default 1.2.
    public var globalBundleGrowthRatio = 1.2
    /// Intrinsics are refined in global bundle adjustment once this many images are registered
    /// (or every image of a smaller capture). Default 10.
    public var refineIntrinsicsMinImages = 10
    /// The principal point is refined in global bundle adjustment once every camera has this many
    /// registered images (0 = never, as COLMAP). Default 8.
    public var refinePrincipalPointMinImages = 8
    /// The principal point is held at the centre while the registered observations stay near it:
    /// while their 90th-percentile distance from the centre is below this fraction of the
    /// half-diagonal. Default 0.45.
    ///
    /// Moving the principal point shifts every point alike, and so does turning the camera a
    /// little, up to terms in the square of the distance from the centre over the focal length:
    /// near the centre the two cannot be told apart, and the point runs off with the poses'
    /// error. A masked object in the middle of the frame is such a capture: lowtex-turntable
    /// under its true masks reaches 0.34 and its principal point ran 37 px off (AUC@5 51 against
    /// 94 held); templeRing (0.51) and turntable-temple (0.51) reach past it (docs/benchmarks.md).
    public var refinePrincipalPointMinSpread = 0.45
    /// Whether intrinsics may be refined at all (false when the user fixed them). Default true.
    public var refineIntrinsics = true
    /// Detached models: images the main model could not register are reconstructed on their own
    /// and merged into it when enough of their points are the same tracks. Default true.
    public var mergeDetachedModels = true
    /// Detached models of fewer images are dropped rather than reported as models of their own. Default 3.
    public var minModelImages = 3
    /// Merging: minimum tracks that the similarity between two models must explain. Default 6.
    public var mergeMinNumInliers = 6
    /// Merging: minimum share of the shared tracks the similarity explains. Default 0.5.
    public var mergeMinInlierRatio = 0.5
    /// Merging: a detached model may register up to this many images of the model it is to
    /// join, and joins it when at least ``mergeMinSharedImages`` of them agree. Default 6.
    public var mergeMaxSharedImages = 6
    /// Merging: shared images a merge by camera poses needs. Default 3: two fix the similarity,
    /// the third checks it.
    public var mergeMinSharedImages = 3
    /// Merging by shared images: largest rotation disagreement of one, in degrees. Default 3.
    public var mergeMaxRotationErrorDeg = 3.0
    /// Merging by shared images: largest centre disagreement of one, as a share of how far the
    /// shared images' centres spread. Default 0.2.
    public var mergeMaxCenterError = 0.2
    /// Merging: a shared track fits when, mapped from one model into the other, its point
    /// reprojects within this many pixels (median over its observations). Default 8.
    public var mergeMaxReprojectionErrorPx = 8.0

    /// Robust loss scale of bundle adjustment in pixels. Default 1.
    public var bundleLossScalePx = 1.0
    /// Robust loss scale of the last global bundle adjustment, after filtering, in pixels.
    /// Default 0.5: SIFT keypoints of a finished model sit within 0.15–0.2 px of their points
    /// (median residual: templeRing 0.15, synthetic-turntable 0.20), so at 1 px a match 1–4 px off, mislocalised
    /// but within the filter's threshold, pulls almost fully; at 0.5 it pulls a quarter as much
    /// (docs/benchmarks.md).
    public var finalBundleLossScalePx = 0.5
    /// Whether that last adjustment refines the intrinsics (when the others do). Default true;
    /// off for turntables: there the object alone, a small part of the frame, constrains the
    /// focal length weakly, and under the tighter loss it drifts (docs/benchmarks.md).
    public var finalRefineIntrinsics = true
    /// Threads of bundle adjustment. Default 1: Ceres adds up residuals and Schur blocks in
    /// the order its threads finish, so with two the poses differ between runs of the same
    /// capture (and a resumed run could not match an uninterrupted one), while on two cores they
    /// are no faster (docs/benchmarks.md).
    public var numThreads = 1
    /// RANSAC seed. Default 0.
    public var seed: UInt64 = 0

    public init() {}

    /// Throws when a value is out of its meaningful range.
    public func validate() throws {
        func require(_ condition: Bool, _ what: String) throws {
            if !condition { throw PipelineError.invalidOption("mapper: \(what)") }
        }
        try require(initMinNumPoints >= 8, "initMinNumPoints must be at least 8")
        try require(!initMinTriangulationAnglesDeg.isEmpty, "initMinTriangulationAnglesDeg is empty")
        try require(absolutePoseMaxErrorPx > 0, "absolutePoseMaxErrorPx must be positive")
        try require(finalBundleLossScalePx > 0, "finalBundleLossScalePx must be positive")
        try require(relativeRegistrationMinMatches == 0 || relativeRegistrationMinMatches >= 5,
                    "relativeRegistrationMinMatches must be 0 (off) or at least 5")
        try require(relativeRegistrationMinPoints >= 2, "relativeRegistrationMinPoints must be at least 2")
        try require(motionPriorSigmaFraction > 0, "motionPriorSigmaFraction must be positive")
        try require(absolutePoseMinNumInliers >= 6, "absolutePoseMinNumInliers must be at least 6")
        try require(priorRegistrationMinInliers == 0 || priorRegistrationMinInliers >= 6,
                    "priorRegistrationMinInliers must be 0 (off) or at least 6")
        try require((0...1).contains(absolutePoseMinInlierRatio), "absolutePoseMinInlierRatio outside 0...1")
        try require(triangulationMaxErrorPx > 0 && filterMaxReprojectionErrorPx > 0, "error thresholds must be positive")
        try require(localBundleNumImages >= 1, "localBundleNumImages must be at least 1")
        try require(localBundleMaxIterations >= 1, "localBundleMaxIterations must be at least 1")
        try require(localBundleFunctionTolerance >= 0, "localBundleFunctionTolerance must be >= 0")
        try require(globalBundleGrowthRatio > 1, "globalBundleGrowthRatio must exceed 1")
        try require((0...1).contains(refinePrincipalPointMinSpread), "refinePrincipalPointMinSpread outside 0...1")
        try require(minModelImages >= 2, "minModelImages must be at least 2")
        try require(mergeMinSharedImages >= 2, "mergeMinSharedImages must be at least 2")
        try require(mergeMaxSharedImages >= 0, "mergeMaxSharedImages must be at least 0")
        try require(mergeMinNumInliers >= 4, "mergeMinNumInliers must be at least 4")
        try require((0...1).contains(mergeMinInlierRatio), "mergeMinInlierRatio outside 0...1")
        try require(mergeMaxReprojectionErrorPx > 0, "mergeMaxReprojectionErrorPx must be positive")
        try require(numThreads >= 1, "numThreads must be at least 1")
    }
}

extension MapperOptions {
    /// Bundle adjustment of local and global refinement: Cauchy at ``bundleLossScalePx``, the
    /// principal point held (the mapper frees it once enough views see it).
    public func bundleOptions(refineIntrinsics: Bool) -> BundleAdjustmentOptions {
        var ba = BundleAdjustmentOptions()
        ba.loss = .cauchy
        ba.lossScale = bundleLossScalePx
        ba.refineFocalLength = refineIntrinsics
        ba.refineExtraParams = refineIntrinsics
        ba.refinePrincipalPoint = false
        ba.numThreads = numThreads
        return ba
    }

    /// The last global adjustment's, after filtering: Cauchy at ``finalBundleLossScalePx``, the
    /// intrinsics held unless ``finalRefineIntrinsics``.
    public func finalBundleOptions(refineIntrinsics: Bool) -> BundleAdjustmentOptions {
        var ba = bundleOptions(refineIntrinsics: refineIntrinsics && finalRefineIntrinsics)
        ba.lossScale = finalBundleLossScalePx
        return ba
    }
}

extension MapperOptions {
    /// Whether the images of `graph` are a sequence (``motionPriorSequenceFraction`` of
    /// consecutive frames verified).
    public func isSequence(_ graph: MatchGraph) -> Bool {
        graph.consecutiveFraction >= motionPriorSequenceFraction
    }
}
