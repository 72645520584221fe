import CVision
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Every option default, pinned to a literal written here: changing a default, in the C core's
/// `cvis_*_options_default` or in a Swift options struct, fails a test, so that the change is
/// deliberate and the documentation that states the default is changed with it. (The mesh
/// core's options are in ``MeshOptionDefaultsTests``.)
final class OptionDefaultsTests: XCTestCase {
    // MARK: - Defaults the C core writes (the Swift structs start from CoreDefaults)

    func testSIFTDefaults() {
        let o = SIFTOptions()
        XCTAssertEqual(o.maxFeatures, 8192)
        XCTAssertEqual(o.maxImageSize, 1600)
        XCTAssertEqual(o.contrastThreshold, 0.04)
        XCTAssertEqual(o.edgeThreshold, 10)
        XCTAssertEqual(o.minFeatures, 500)
        XCTAssertEqual(o.minContrastThreshold, 0.005)
        XCTAssertEqual(o.alphaMargin, 10.6066, accuracy: 1e-4)  // 3 √2 (4 + 1) / 2
        XCTAssertEqual(o.affineMaxTilt, 0)
        XCTAssertTrue(o.rootSIFT)
        XCTAssertTrue(o.applyEXIFOrientation)
        XCTAssertEqual(SIFTOptions.workingFeatureCount, 500, "the working count the README explains")
    }

    func testDescriptorMatchingDefaults() {
        let o = MatchOptions()
        XCTAssertEqual(o.maxRatio, 0.8)
        XCTAssertEqual(o.maxDistance, 0.7)
        XCTAssertTrue(o.crossCheck)
    }

    func testAbsolutePoseDefaults() {
        let o = AbsolutePoseEstimator.Options()
        XCTAssertEqual(o.maxError, 0.004)
        XCTAssertEqual(o.confidence, 0.9999)
        XCTAssertEqual(o.maxIterations, 10000)
        XCTAssertEqual(o.minNumInliers, 12)
        XCTAssertTrue(o.refine)
        XCTAssertEqual(o.seed, 0)
    }

    func testTriangulationDefaults() {
        let o = Triangulator.Options()
        XCTAssertEqual(o.minAngleDegrees, 1.5)
        XCTAssertEqual(o.maxError, 0.004)
        XCTAssertEqual(o.minNumViews, 2)
    }

    func testTwoViewDefaults() {
        let o = TwoViewOptions()
        XCTAssertEqual(o.maxErrorPixels, 4)
        XCTAssertEqual(o.confidence, 0.9999)
        XCTAssertEqual(o.maxIterations, 10000)
        XCTAssertEqual(o.minNumInliers, 15)
        XCTAssertEqual(o.minInlierRatio, 0.25)
        XCTAssertEqual(o.maxHInlierRatio, 0.8)
        XCTAssertEqual(o.minEFInlierRatio, 0.95)
        XCTAssertEqual(o.seed, 0)
    }

    func testBundleAdjustmentDefaults() {
        let o = BundleAdjustmentOptions()
        XCTAssertEqual(o.loss, .cauchy)
        XCTAssertEqual(o.lossScale, 1)
        XCTAssertEqual(o.maxIterations, 100)
        XCTAssertEqual(o.functionTolerance, 1e-6)
        XCTAssertEqual(o.gradientTolerance, 1e-10)
        XCTAssertEqual(o.parameterTolerance, 1e-8)
        XCTAssertTrue(o.refineFocalLength)
        XCTAssertFalse(o.refinePrincipalPoint)
        XCTAssertTrue(o.refineExtraParams)
        XCTAssertEqual(o.numThreads, 1)
        XCTAssertEqual(BundlePosePriors(camFromWorld: [:], positionSigma: 1, rotationSigmaRad: 0).lossScale, 2)
    }

    func testFusionDefaults() {
        let o = FusionOptions()
        XCTAssertEqual(o.minNumViews, 2)
        XCTAssertEqual(o.maxReprojectionError, 2)
        XCTAssertEqual(o.maxDepthError, 0.01)
        XCTAssertEqual(o.maxNormalErrorDeg, 30)
        XCTAssertEqual(o.numThreads, 2)
        XCTAssertEqual(o.maxSensorDepthError, 0.03)
        XCTAssertEqual(o.minNumSensorViews, 2)
        XCTAssertEqual(o.numSensorNeighbours, 8)
    }

    func testPatchMatchDefaults() {
        let o = PatchMatchOptions()
        XCTAssertEqual(o.windowRadius, 5)
        XCTAssertEqual(o.windowStep, 2)
        XCTAssertEqual(o.sigmaSpatial, 5)
        XCTAssertEqual(o.sigmaColor, 0.05)
        XCTAssertEqual(o.numIterations, 3)
        XCTAssertEqual(o.coarseIterations, 2)
        XCTAssertEqual(o.fineViews, 5)
        XCTAssertEqual(o.topKViews, 4)
        XCTAssertEqual(o.minTriangulationAngleDegrees, 1)
        XCTAssertEqual(o.geometricConsistencyRegularizer, 0.3)
        XCTAssertEqual(o.geometricConsistencyMaxError, 3)
        XCTAssertEqual(o.filterMaxCost, 0.5)
        XCTAssertFalse(o.planarPriors)
        XCTAssertEqual(o.filterMinViews, 2)
        XCTAssertEqual(o.numThreads, 2)
        XCTAssertEqual(o.seed, 0)
    }

    func testTextureDefaults() {
        let o = TextureOptions()
        XCTAssertEqual(o.pageSize, 4096)
        XCTAssertEqual(o.maxPages, 1)
        XCTAssertEqual(o.paddingPx, 4)
        XCTAssertEqual(o.maxTexelPerPixel, 2)
        XCTAssertEqual(o.minViewCos, 0.1)
        XCTAssertEqual(o.smoothness, 1)
        XCTAssertEqual(o.smoothingIterations, 10)
        XCTAssertEqual(o.maxViewsPerFace, 8)
        XCTAssertEqual(o.seamLevelling, .local)
        XCTAssertEqual(o.seamRegularization, 0.1)
        XCTAssertEqual(o.localSeamSigmaPx, 1)
        XCTAssertEqual(o.numThreads, 2)
    }

    func testInputLimitDefaults() {
        XCTAssertEqual(DecodeLimits().maxPixels, 120_000_000)
        XCTAssertEqual(DecodeLimits().maxMegapixels, 120, "the limit the README gives")
        XCTAssertEqual(ReconstructionOptions().decodeLimits, DecodeLimits())
        let unzip = UnzipLimits()
        XCTAssertEqual(unzip.maxTotalBytes, 8 << 30)
        XCTAssertEqual(unzip.maxEntryBytes, 1 << 30)
        XCTAssertEqual(unzip.maxEntries, 100_000)
        XCTAssertEqual(unzip.maxCompressionRatio, 200)
    }

    /// The C defaults no Swift property carries: the core's own callers (and a C caller) take them.
    func testCoreOnlyDefaults() {
        var video = cvis_video_measure_options()
        cvis_video_measure_options_default(&video)
        XCTAssertEqual(video.sharpness_side, 640)
        XCTAssertEqual(video.flow_side, 320)
        XCTAssertEqual(video.max_points, 300)
        XCTAssertEqual(video.reseed_tracked, 0.5)
        XCTAssertEqual(video.renew_distance, 0.02)

        var retrieval = cvis_retrieval_options()
        cvis_retrieval_options_default(&retrieval)
        XCTAssertEqual(retrieval.branching, 6)
        XCTAssertEqual(retrieval.max_depth, 8)
        XCTAssertEqual(retrieval.descriptors_per_word, 128)
        XCTAssertEqual(retrieval.min_node_size, 32)
        XCTAssertEqual(retrieval.max_training_descriptors, 250_000)
        XCTAssertEqual(retrieval.kmeans_iterations, 10)
        XCTAssertEqual(retrieval.max_hamming_distance, 24)
        XCTAssertEqual(retrieval.hamming_sigma, 16)
        XCTAssertEqual(retrieval.seed, 0)
        XCTAssertEqual(retrieval.num_threads, 1)

        var priors = cvis_ba_pose_priors()
        cvis_ba_pose_priors_default(&priors)
        XCTAssertEqual(priors.position_sigma, 1)
        XCTAssertEqual(priors.rotation_sigma_rad, 0)
        XCTAssertEqual(priors.loss_scale, 2)
    }

    // MARK: - Defaults written in Swift

    func testRetrievalDefaults() {
        let o = RetrievalOptions()
        XCTAssertEqual(o.branching, 6)
        XCTAssertEqual(o.maxDepth, 8)
        XCTAssertEqual(o.descriptorsPerWord, 128)
        XCTAssertEqual(o.minNodeSize, 32)
        XCTAssertEqual(o.maxTrainingDescriptors, 250_000)
        XCTAssertEqual(o.kmeansIterations, 10)
        XCTAssertEqual(o.maxHammingDistance, 24)
        XCTAssertEqual(o.hammingSigma, 16)
        XCTAssertEqual(o.seed, 0)
    }

    func testRelativePoseDefaults() {
        let o = RelativePoseEstimator.Options()
        XCTAssertEqual(o.maxError, 0.004)
        XCTAssertEqual(o.confidence, 0.9999)
        XCTAssertEqual(o.seed, 0)
    }

    func testFeatureDefaults() {
        XCTAssertEqual(FeatureResolution().fullResolutionBudgetMegapixels, 64)
        let finer = FinerFeatures()
        XCTAssertTrue(finer.enabled)
        XCTAssertEqual(finer.partners, 4)
        XCTAssertEqual(finer.contrastFactor, 0.5)
        XCTAssertEqual(finer.maxImages, 40)
    }

    func testKeyframeDefaults() {
        let o = KeyframeSelection.Options()
        XCTAssertEqual(o.target, 100)
        XCTAssertEqual(o.minimumStep, 0.002)
        XCTAssertEqual(o.maximumStep, 0.15)
        XCTAssertEqual(o.blurRatio, 0.5)
        XCTAssertEqual(o.blurWindowSeconds, 2)
        XCTAssertEqual(o.window, 0.25)
    }

    func testMatchingDefaults() {
        let o = MatchingOptions()
        XCTAssertEqual(o.minPutativeMatches, 20)
        XCTAssertEqual(o.guidedMatchingBelowInliers, 0)
        XCTAssertEqual(o.orientation.maxDeviationDeg, 135)

        let pairs = PairSelectionOptions()
        XCTAssertEqual(pairs.strategy, .automatic)
        XCTAssertEqual(pairs.exhaustiveLimit, 500)
        XCTAssertEqual(pairs.exhaustiveComparisons, 1.5e11)
        XCTAssertFalse(pairs.walk)
        XCTAssertEqual(pairs.sequentialOverlap, 10)
        XCTAssertTrue(pairs.quadraticOverlap)
        XCTAssertEqual(pairs.retrievalNeighbours, 30)
        XCTAssertEqual(pairs.sequenceFraction, 0.5)
        XCTAssertEqual(pairs.priorNeighbours, 6)
        XCTAssertEqual(pairs.priorMinOverlap, 0.05)

        let still = StillBackgroundOptions()
        XCTAssertTrue(still.enabled)
        XCTAssertEqual(still.numPairs, 8)
        XCTAssertEqual(still.minTexturedFraction, 0.05)
        XCTAssertEqual(still.minConclusivePairs, 3)
        XCTAssertEqual(still.maxChange, 0.01)

        let fixed = StaticFeatureOptions()
        XCTAssertTrue(fixed.enabled)
        XCTAssertEqual(fixed.maxDisplacementFraction, 0.0025)
        XCTAssertEqual(fixed.minStationaryMatches, 12)
        XCTAssertEqual(fixed.minStationaryFraction, 0.1)
        XCTAssertEqual(fixed.minStaticPairFraction, 0.6)
        XCTAssertEqual(fixed.minPutativeMatches, 20)
        XCTAssertEqual(fixed.minStationarySpreadFraction, 0.02)

        let guidance = PriorGuidanceOptions()
        XCTAssertTrue(guidance.enabled)
        XCTAssertEqual(guidance.sampleFraction, 0.1)
        XCTAssertEqual(guidance.bandFactor, 2)
        XCTAssertEqual(guidance.minBandInThresholds, 4)
        XCTAssertEqual(guidance.maxBandFraction, 0.25)

        let rematch = RematchOptions()
        XCTAssertTrue(rematch.transitive)
        XCTAssertEqual(rematch.transitiveMinMatches, 0)
        XCTAssertEqual(rematch.transitiveMaxPerImage, 15)
        XCTAssertTrue(rematch.spatial)
        let spatial = SpatialPairOptions()
        XCTAssertEqual(spatial.maxNeighbours, 30)
        XCTAssertEqual(spatial.maxViewAngleDegrees, 60)
        XCTAssertEqual(spatial.minCovisibleFraction, 0.3)
    }

    func testMapperDefaults() {
        let o = MapperOptions()
        XCTAssertEqual(o.initMinNumPoints, 100)
        XCTAssertEqual(o.initMinTriangulationAnglesDeg, [16, 8, 4])
        XCTAssertEqual(o.initMaxCandidatePairs, 40)
        XCTAssertEqual(o.absolutePoseMaxErrorPx, 4)
        XCTAssertEqual(o.absolutePoseMinNumInliers, 30)
        XCTAssertEqual(o.absolutePoseMinInlierRatio, 0.25)
        XCTAssertEqual(o.maxRegistrationTrials, 3)
        XCTAssertEqual(o.relativeRegistrationMinMatches, 15)
        XCTAssertEqual(o.relativeRegistrationMinPoints, 8)
        XCTAssertEqual(o.motionPriorSequenceFraction, 0.5)
        XCTAssertEqual(o.motionPriorSigmaFraction, 0.5)
        XCTAssertEqual(o.priorRegistrationMinInliers, 10)
        XCTAssertEqual(o.triangulationMinAngleDeg, 1.5)
        XCTAssertEqual(o.triangulationMaxErrorPx, 4)
        XCTAssertEqual(o.filterMaxReprojectionErrorPx, 4)
        XCTAssertEqual(o.filterMinTriangulationAngleDeg, 1.5)
        XCTAssertEqual(o.localBundleNumImages, 6)
        XCTAssertEqual(o.localBundleMaxIterations, 25)
        XCTAssertEqual(o.localBundleFunctionTolerance, 1e-6)
        XCTAssertEqual(o.globalBundleGrowthRatio, 1.2)
        XCTAssertEqual(o.refineIntrinsicsMinImages, 10)
        XCTAssertEqual(o.refinePrincipalPointMinImages, 8)
        XCTAssertTrue(o.refineIntrinsics)
        XCTAssertTrue(o.mergeDetachedModels)
        XCTAssertEqual(o.minModelImages, 3)
        XCTAssertEqual(o.mergeMinNumInliers, 6)
        XCTAssertEqual(o.mergeMinInlierRatio, 0.5)
        XCTAssertEqual(o.mergeMaxSharedImages, 6)
        XCTAssertEqual(o.mergeMinSharedImages, 3)
        XCTAssertEqual(o.mergeMaxRotationErrorDeg, 3)
        XCTAssertEqual(o.mergeMaxCenterError, 0.2)
        XCTAssertEqual(o.mergeMaxReprojectionErrorPx, 8)
        XCTAssertEqual(o.bundleLossScalePx, 1)
        XCTAssertEqual(o.finalBundleLossScalePx, 0.5)
        XCTAssertTrue(o.finalRefineIntrinsics)
        XCTAssertEqual(o.numThreads, 1)
        XCTAssertEqual(o.seed, 0)

        let rotations = RotationConsistency()
        XCTAssertEqual(rotations.maxResidualDeg, 45)
        XCTAssertEqual(rotations.cauchyScaleDeg, 5)
        XCTAssertEqual(rotations.minInFrontRatio, 0.5)
        XCTAssertEqual(rotations.minVoteMatches, 100)
        XCTAssertEqual(rotations.sweeps, 20)

        let priors = PriorAlignmentOptions()
        XCTAssertEqual(priors.minCameras, 4)
        XCTAssertEqual(priors.minPositionSigmaFraction, 0.002)
        XCTAssertEqual(priors.minRotationSigmaDeg, 0.1)
    }

    func testDenseDefaults() {
        let o = DenseOptions()
        XCTAssertEqual(o.detail, .full)
        XCTAssertFalse(o.geometricPass)
        XCTAssertEqual(DenseOptions.roomFusionMinViews, 3)
        XCTAssertEqual(o.numSourceViews, 8)
        XCTAssertEqual(o.minTriangulationAngleDeg, 5)
        XCTAssertEqual(o.cacheBytes, 1 << 30)
        XCTAssertEqual(o.concurrentImages, 1)

        let neighbours = NeighbourViews.Options()
        XCTAssertEqual(neighbours.numSources, 6)
        XCTAssertEqual(neighbours.minTriangulationAngleDeg, 5)
        XCTAssertEqual(neighbours.fullWeightMaxAngleDeg, 40)
        XCTAssertEqual(neighbours.maxTriangulationAngleDeg, 80)
        XCTAssertEqual(neighbours.maxResolutionRatio, 1.6)
        XCTAssertEqual(neighbours.minRelativeScore, 0.1)
        XCTAssertEqual(neighbours.depthPercentiles.lower, 0.01)
        XCTAssertEqual(neighbours.depthPercentiles.upper, 0.99)
        XCTAssertEqual(neighbours.depthMargin, 0.25)
    }

    func testSurfaceDefaults() {
        let o = SurfaceOptions()
        XCTAssertEqual(o.detail, .medium)
        XCTAssertFalse(o.room)
        XCTAssertNil(o.depth)
        XCTAssertNil(o.region)
        XCTAssertEqual(o.regionMargin, 0.1)
        XCTAssertEqual(o.numThreads, 2)
        XCTAssertEqual(SurfaceOptions.regionQuantile, 0.01)
        XCTAssertEqual(SurfaceOptions.roomMaxDistanceSpacings, 3)
        XCTAssertEqual(SurfaceOptions.roomDensityQuantile, 0.1)

        XCTAssertEqual(VisualHull.defaultDilationShare, 0.01)
        let hull = VisualHull(views: [], maskURLs: [])
        XCTAssertEqual(hull.dilationShare, 0.01)
        XCTAssertEqual(hull.minViews, 1)
    }

    func testScaleDefaults() {
        let o = MetricScale.Options()
        XCTAssertEqual(o.maxRelativeJump, 0.05)
        XCTAssertEqual(o.outlierSigmas, 3)
        XCTAssertEqual(o.minPoints, 20)
    }

    func testMarkerScaleDefaults() {
        let detection = MarkerDetector.Options()
        XCTAssertEqual(detection.subpixelWindow, 5)
        XCTAssertEqual(detection.minPerimeterRate, 0.01)
        let o = MarkerScale.Options()
        XCTAssertEqual(o.detection, detection)
        XCTAssertEqual(o.maxReprojectionErrorPx, 4)
        XCTAssertEqual(o.minAngleDegrees, 2)
        XCTAssertEqual(o.maxViewAngleDegrees, 75)
        XCTAssertEqual(o.outlierSigmas, 3)
        XCTAssertEqual(o.minMarkers, 1)
        XCTAssertEqual(UserScaling.pickedPointMaxErrorPx, 10)
        let stage = MetricScaleStage.Options()
        XCTAssertNil(stage.markers)
        XCTAssertNil(stage.userScale)
        XCTAssertFalse(stage.keyText.contains("markers"), "a run without markers keeps the key it had")
        XCTAssertEqual(MarkerFrame.minMarkers, 2)
        XCTAssertEqual(MarkerFrame.maxPlaneRMSFraction, 0.02)
        XCTAssertFalse(UprightStage.Options().markerFrame)
        XCTAssertEqual(UprightStage.Options().keyText, "", "a run without --marker-frame keeps the key it had")
    }

    func testReconstructionDefaults() {
        let o = ReconstructionOptions()
        XCTAssertEqual(o.detail, .full)
        XCTAssertFalse(o.sparseOnly)
        XCTAssertFalse(o.room)
        XCTAssertEqual(o.mask, .automatic)
        XCTAssertEqual(o.blurFloorFraction, 0.3)
        XCTAssertEqual(o.blankContrast, 1.0 / 255)
        XCTAssertEqual(o.priors, .automatic)
        XCTAssertNil(o.fixedIntrinsics)
        XCTAssertEqual(o.numThreads, 2)
        XCTAssertEqual(o.seed, 0)
        XCTAssertNil(o.cameraModel)
        XCTAssertFalse(o.noMesh)
        XCTAssertFalse(o.markerFrame)
    }

    /// The stages' own defaults (the rest of their options are the structs above).
    func testStageDefaults() {
        XCTAssertEqual(FeatureStage.Options().blurFloorFraction, 0.3)
        XCTAssertEqual(FeatureStage.Options().blankContrast, 1.0 / 255)
        XCTAssertEqual(ModelStage.Options().jpegQuality, 95)
        XCTAssertEqual(DenseStage.Options().detail, .full)
        XCTAssertFalse(DenseStage.Options().room)
        XCTAssertEqual(DenseStage.Options().seed, 0)
        XCTAssertEqual(SparseStage.Options().seed, 0)
        XCTAssertFalse(DiagnosticsStage.Options().room)
        XCTAssertFalse(MatchingStage.Options().room)
        XCTAssertNil(MatchingStage.Options().fixedIntrinsics)
        XCTAssertNil(MatchingStage.Options().cameraModel)
        XCTAssertEqual(IngestStage.Options().mask, .automatic)
        XCTAssertEqual(IngestStage.Options().priors, .automatic)
        XCTAssertFalse(IngestStage.Options().room)
    }

    // MARK: - The bridge

    /// Every field of a C struct, by name, as text.
    func fields<T>(_ value: T) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: value).children.map { ($0.label ?? "?", "\($0.value)") })
    }

    func assertSame<T>(_ swift: T, _ core: T, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let a = fields(swift), b = fields(core)
        XCTAssertFalse(b.isEmpty, "\(what): no fields reflected", file: file, line: line)
        XCTAssertEqual(a, b, what, file: file, line: line)
    }

    /// A default Swift struct hands every field of the C default across the boundary unchanged:
    /// no field is dropped or mapped to another (the values themselves are pinned above).
    func testSwiftStructsHandTheCoreDefaultsToC() {
        var sift = cvis_sift_options(), match = cvis_match_options(), pose = cvis_absolute_pose_options()
        var triangulation = cvis_triangulation_options(), twoView = cvis_two_view_options(), fusion = cvis_fusion_options()
        var bundle = cvis_ba_options(), texture = cvis_texture_options(), patchMatch = cvis_patch_match_options()
        var decode = cvis_decode_limits(), unzip = cvis_unzip_limits()
        cvis_patch_match_options_default(&patchMatch)
        cvis_texture_options_default(&texture)
        cvis_ba_options_default(&bundle)
        cvis_sift_options_default(&sift)
        cvis_match_options_default(&match)
        cvis_absolute_pose_options_default(&pose)
        cvis_triangulation_options_default(&triangulation)
        cvis_two_view_options_default(&twoView)
        cvis_fusion_options_default(&fusion)
        cvis_decode_limits_default(&decode)
        cvis_unzip_limits_default(&unzip)
        assertSame(SIFTOptions().cOptions(), sift, "SIFT")
        assertSame(MatchOptions().cOptions(), match, "descriptor matching")
        assertSame(AbsolutePoseEstimator.Options().cOptions, pose, "absolute pose")
        assertSame(Triangulator.Options().cOptions(), triangulation, "triangulation")
        assertSame(TwoViewOptions().cOptions(), twoView, "two-view geometry")
        assertSame(FusionOptions().cOptions(), fusion, "fusion")
        assertSame(BundleAdjustmentOptions().cOptions, bundle, "bundle adjustment")
        assertSame(TextureOptions().cOptions, texture, "texturing")
        assertSame(PatchMatchOptions().cOptions, patchMatch, "PatchMatch")
        assertSame(DecodeLimits().cLimits, decode, "decode limits")
        assertSame(UnzipLimits().cLimits(), unzip, "unzip limits")
    }
}
