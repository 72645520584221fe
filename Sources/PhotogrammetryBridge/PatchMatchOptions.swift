import CVision
import Foundation

/// Options of PatchMatch multi-view stereo, mirroring `cvis_patch_match_options`; the defaults
/// are the C core's (`cvis_patch_match_options_default`).
public struct PatchMatchOptions: Sendable, Equatable {
    /// Half-size of the matching window in pixels (an 11 x 11 window). Default 5.
    public var windowRadius = Int(CoreDefaults.patchMatch.window_radius)
    /// Every `windowStep`-th row and column of the window is sampled. Default 2.
    public var windowStep = Int(CoreDefaults.patchMatch.window_step)
    /// Spatial sigma of the bilateral weights, pixels. Default 5.
    public var sigmaSpatial = CoreDefaults.patchMatch.sigma_spatial
    /// Intensity sigma of the bilateral weights (intensities in [0, 1]). Default 0.05, a quarter of
    /// COLMAP's: windows across an edge then weigh its far side less (see the C default).
    public var sigmaColor = CoreDefaults.patchMatch.sigma_color
    /// Propagation and refinement sweeps per pass at one resolution (views too small for half
    /// resolution; the geometric pass, which starts converged, runs a third of them, at least
    /// one). Default 3.
    public var numIterations = Int(CoreDefaults.patchMatch.num_iterations)
    /// Sweeps at half resolution before the one at full resolution (views large enough for
    /// coarse-to-fine). Default 2: a third sweep barely changes the cloud and costs half as much
    /// time again (docs/benchmarks.md).
    public var coarseIterations = Int(CoreDefaults.patchMatch.coarse_iterations)
    /// The full-resolution sweep scores a pixel's candidates with only the sources of its
    /// upsampled plane's lowest costs (0: every source). Default 5 of the 8 sources: the
    /// `topKViews` best, which decide a pixel's cost, plus one to spare; the sweep is faster than
    /// with every source (docs/benchmarks.md).
    public var fineViews = Int(CoreDefaults.patchMatch.fine_views)
    /// Source views whose costs are averaged per pixel: the best `topKViews` of the sources that
    /// see the point. Default 4.
    public var topKViews = Int(CoreDefaults.patchMatch.top_k_views)
    /// A source seeing the point at a smaller triangulation angle does not vote, degrees. Default 1.
    public var minTriangulationAngleDegrees = CoreDefaults.patchMatch.min_triangulation_angle_deg
    /// Weight of the forward-backward reprojection error (pixels) in the geometric pass. Default 0.3.
    public var geometricConsistencyRegularizer = CoreDefaults.patchMatch.geom_consistency_regularizer
    /// The reprojection error is clamped here, pixels. Default 3.
    public var geometricConsistencyMaxError = CoreDefaults.patchMatch.geom_consistency_max_error
    /// Pixels whose final cost exceeds this are invalid. Default 0.5.
    public var filterMaxCost = CoreDefaults.patchMatch.filter_max_cost
    /// Geometric pass: pixels consistent with fewer source views (error < 1 px, depth within
    /// 1 %) are invalid. Default 2.
    public var filterMinViews = Int(CoreDefaults.patchMatch.filter_min_views)
    /// Worker threads. Default 2.
    public var numThreads = Int(CoreDefaults.patchMatch.num_threads)
    /// Seed of the random initialisation and refinement. Default 0.
    public var seed = CoreDefaults.patchMatch.seed
    /// Planar priors (ACMP): a pass of their own after the photometric one, in which the confident
    /// pixels are triangulated in the image and pixels photometry cannot decide (bare walls,
    /// floors, ceilings) take their triangle's plane once the sources' maps do not see through it,
    /// marked for other views to confirm (see `cvis_patch_match_options`). The photometric pass
    /// ignores it. Default false.
    public var planarPriors = CoreDefaults.patchMatch.planar_prior != 0

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` naming the first value out of range.
    public func validate() throws {
        func fail(_ what: String) -> CVisionError {
            CVisionError(code: .invalidArgument, message: "PatchMatchOptions.\(what)")
        }
        guard (1...10).contains(windowRadius) else { throw fail("windowRadius must be in 1...10") }
        guard windowStep >= 1, windowStep <= windowRadius else { throw fail("windowStep must be in 1...windowRadius") }
        guard sigmaSpatial > 0, sigmaColor > 0 else { throw fail("sigmaSpatial and sigmaColor must be > 0") }
        guard (1...100).contains(numIterations) else { throw fail("numIterations must be in 1...100") }
        guard (1...100).contains(coarseIterations) else { throw fail("coarseIterations must be in 1...100") }
        guard fineViews >= 0 else { throw fail("fineViews must be >= 0") }
        guard (1...64).contains(topKViews) else { throw fail("topKViews must be in 1...64") }
        guard minTriangulationAngleDegrees >= 0, minTriangulationAngleDegrees < 90 else {
            throw fail("minTriangulationAngleDegrees must be in [0, 90)")
        }
        guard geometricConsistencyRegularizer >= 0 else { throw fail("geometricConsistencyRegularizer must be >= 0") }
        guard geometricConsistencyMaxError > 0 else { throw fail("geometricConsistencyMaxError must be > 0") }
        guard filterMaxCost > 0 else { throw fail("filterMaxCost must be > 0") }
        guard filterMinViews >= 0, filterMinViews <= 64 else { throw fail("filterMinViews must be in 0...64") }
        guard (1...256).contains(numThreads) else { throw fail("numThreads must be in 1...256") }
    }

    var cOptions: cvis_patch_match_options {
        var o = cvis_patch_match_options()
        cvis_patch_match_options_default(&o)
        o.window_radius = Int32(windowRadius)
        o.window_step = Int32(windowStep)
        o.sigma_spatial = sigmaSpatial
        o.sigma_color = sigmaColor
        o.num_iterations = Int32(numIterations)
        o.coarse_iterations = Int32(coarseIterations)
        o.fine_views = Int32(fineViews)
        o.top_k_views = Int32(topKViews)
        o.min_triangulation_angle_deg = minTriangulationAngleDegrees
        o.geom_consistency_regularizer = geometricConsistencyRegularizer
        o.geom_consistency_max_error = geometricConsistencyMaxError
        o.filter_max_cost = filterMaxCost
        o.filter_min_views = Int32(filterMinViews)
        o.num_threads = Int32(numThreads)
        o.seed = seed
        o.planar_prior = planarPriors ? 1 : 0
        return o
    }
}

/// The options as text (what manifest and stage keys are made of) name `planarPriors` only when
/// it is on: keys made before it existed stay the same, so runs without it reuse their work.
extension PatchMatchOptions: CustomReflectable {
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [
            ("windowRadius", windowRadius), ("windowStep", windowStep), ("sigmaSpatial", sigmaSpatial),
            ("sigmaColor", sigmaColor), ("numIterations", numIterations), ("coarseIterations", coarseIterations),
            ("fineViews", fineViews), ("topKViews", topKViews),
            ("minTriangulationAngleDegrees", minTriangulationAngleDegrees),
            ("geometricConsistencyRegularizer", geometricConsistencyRegularizer),
            ("geometricConsistencyMaxError", geometricConsistencyMaxError), ("filterMaxCost", filterMaxCost),
            ("filterMinViews", filterMinViews), ("numThreads", numThreads), ("seed", seed),
        ]
        if planarPriors { children.append(("planarPriors", planarPriors)) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
