/// Each stage's options, made from the run's: shared values (room, seed, detail) passed down.
extension ReconstructionOptions {
    /// Stage 1.
    public var ingestStage: IngestStage.Options {
        var stage = IngestStage.Options()
        stage.mask = mask
        stage.room = room
        stage.priors = priors
        stage.keyframes = keyframes
        stage.decodeLimits = decodeLimits
        stage.markers = markers
        stage.knownDistanceMarkerIDs = userScale?.knownDistance?.markerIDs ?? []
        stage.markerFrame = markerFrame
        return stage
    }

    /// Stage 1a.
    public var segmentationStage: SegmentationStage.Options {
        var stage = SegmentationStage.Options()
        stage.segmentation = automaticMasks
        stage.segmentation.enabled = automaticMasks.enabled && mask != .disabled
        stage.room = room
        return stage
    }

    /// Stage 2.
    public var featureStage: FeatureStage.Options {
        var stage = FeatureStage.Options()
        stage.sift = sift
        stage.resolution = featureResolution
        stage.blurFloorFraction = blurFloorFraction
        stage.blankContrast = blankContrast
        return stage
    }

    /// Stage 3.
    public var matchingStage: MatchingStage.Options {
        var stage = MatchingStage.Options()
        stage.matching = matching
        stage.room = room
        stage.fixedIntrinsics = fixedIntrinsics
        stage.cameraModel = cameraModel
        return stage
    }

    /// Stages 4, 6 and 9 (each SfM run).
    public var sparseStage: SparseStage.Options {
        var stage = SparseStage.Options()
        stage.mapper = mapper
        stage.seed = seed
        return stage
    }

    /// Stage 9a: the solve's defaults, with the run's seed.
    public var evenTurnStage: EvenTurnStage.Options {
        var stage = EvenTurnStage.Options()
        stage.solver.seed = seed
        return stage
    }

    /// Stage 5.
    public var rematchingStage: RematchingStage.Options {
        var stage = RematchingStage.Options()
        stage.matching = matching
        return stage
    }

    /// Stage 7.
    public var finerFeaturesStage: FinerFeaturesStage.Options {
        var stage = FinerFeaturesStage.Options()
        stage.finerFeatures = finerFeatures
        stage.mapper = mapper
        return stage
    }

    /// Stage 8.
    public var finerMatchingStage: FinerMatchingStage.Options {
        var stage = FinerMatchingStage.Options()
        stage.matching = matching
        return stage
    }

    /// Stage 10: the alignment's defaults, refined as the SfM's final bundle adjustment.
    public var priorAlignmentStage: PriorAlignmentStage.Options {
        var stage = PriorAlignmentStage.Options()
        stage.sparse = sparseStage
        return stage
    }

    /// Stage 11.
    public var diagnosticsStage: DiagnosticsStage.Options {
        var stage = DiagnosticsStage.Options()
        stage.room = room
        return stage
    }

    /// Stage 12: the metric scale's defaults, with the markers and the scale the user gave.
    public var metricScaleStage: MetricScaleStage.Options {
        var stage = MetricScaleStage.Options()
        stage.markers = markers
        stage.userScale = userScale
        return stage
    }

    /// Stage 13: upright, or the marker board's frame.
    public var uprightStage: UprightStage.Options {
        var stage = UprightStage.Options()
        stage.markerFrame = markerFrame
        return stage
    }

    /// Stage 15.
    public var denseStage: DenseStage.Options {
        var stage = DenseStage.Options()
        stage.dense = dense
        stage.closeEnvelope = closeEnvelope
        stage.detail = detail
        stage.seed = seed
        stage.room = room
        stage.sensorDepth = sensorDepth
        stage.planarPriors = planarPriors
        return stage
    }

    /// Stage 16.
    public var surfaceStage: SurfaceStage.Options {
        var stage = SurfaceStage.Options()
        stage.surface = surface
        stage.surface.detail = detail
        stage.surface.room = room
        return stage
    }

    /// Stage 17: pages of the level's texture size, as many as the level allows.
    public var modelStage: ModelStage.Options {
        var stage = ModelStage.Options()
        stage.texture = texture
        stage.texture.pageSize = detail.textureSize
        stage.texture.maxPages = detail.maxTexturePages
        return stage
    }
}
