import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of the dense stage: working resolution, source views, PatchMatch, fusion and memory.
///
/// The pipeline passes its shared values down: ``detail`` from `--detail`, and its thread count
/// and seed into ``patchMatch`` and ``fusion``.
public struct DenseOptions: Sendable {
    /// The detail level, which sets the working resolution of the depth maps. Default full.
    public var detail = DetailLevel.full
    /// PatchMatch, both passes (photometric, then geometric). Default: PatchMatchOptions().
    public var patchMatch = PatchMatchOptions()
    /// Depth-map fusion into the point cloud. Default: FusionOptions().
    public var fusion = FusionOptions()
    /// Runs PatchMatch's geometric pass (every map again, its sources' photometric maps asked to
    /// agree) and fuses its maps instead of the photometric ones. Default false: fusion already
    /// keeps only what two depth maps agree on, and the geometric pass drops surface those maps
    /// hold, at a large share of the dense stage's time (docs/benchmarks.md).
    public var geometricPass = false
    /// Rooms fuse a photometric point only where at least this many views agree (sensor points
    /// take ``FusionOptions/minNumSensorViews``, two: each frame's depth is its own metric
    /// measurement). A room's mesh must stay
    /// where surfaces were seen, and the cloud's noise is what Poisson spans there: three views
    /// leave a fraction of two views' stray points for nearly the same coverage
    /// (docs/benchmarks.md).
    public static let roomFusionMinViews = 3
    /// Source views per reference image. Default 8.
    ///
    /// PatchMatch costs time in proportion to its sources (every hypothesis is scored in each),
    /// and averages the best `patchMatch.topKViews` (4) per pixel; 8 candidates leave four to drop
    /// where the point is occluded or outside a source's frame. On a ring of cameras these are the
    /// nearest four on either side. Fewer sources save time but lose F1 (docs/benchmarks.md).
    public var numSourceViews = 8
    /// When ranking sources, shared points seen at a smaller triangulation angle (degrees) count
    /// less, by (angle / this)²: depth from a narrow baseline is poor. Default 5.
    public var minTriangulationAngleDeg = 5.0
    /// Bytes of decoded views and depth maps the workspace keeps in memory; older ones are
    /// dropped and read again from disk when needed. Default 1 GiB.
    public var cacheBytes = 1 << 30
    /// Depth maps computed at the same time, each with `patchMatch.numThreads / this` threads.
    /// Default 1: PatchMatch already keeps every thread busy inside one image (two at a time are
    /// no faster, docs/benchmarks.md), and one image at a time needs the fewest views in the cache.
    public var concurrentImages = 1

    public init() {}

    /// How sources are ranked and depth ranges set (``NeighbourViews/Options``).
    public var neighbourOptions: NeighbourViews.Options {
        var options = NeighbourViews.Options()
        options.numSources = numSourceViews
        options.minTriangulationAngleDeg = minTriangulationAngleDeg
        return options
    }

    /// Throws the first option that is out of range.
    public func validate() throws {
        guard numSourceViews >= 1 && numSourceViews <= 64 else {
            throw PipelineError.invalidOption("dense: numSourceViews must be in 1...64")
        }
        guard minTriangulationAngleDeg > 0 && minTriangulationAngleDeg <= 40 else {
            throw PipelineError.invalidOption("dense: minTriangulationAngleDeg must be in (0, 40]")
        }
        guard cacheBytes >= 16 << 20 else {
            throw PipelineError.invalidOption("dense: cacheBytes must be at least 16 MiB")
        }
        guard concurrentImages >= 1 && concurrentImages <= 16 else {
            throw PipelineError.invalidOption("dense: concurrentImages must be in 1...16")
        }
        try neighbourOptions.validate()
        try patchMatch.validate()
        try fusion.validate()
    }
}
