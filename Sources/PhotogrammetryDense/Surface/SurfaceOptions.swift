import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of surface reconstruction (``SurfaceReconstruction``): the detail level, object or
/// room, the region kept, and the options of each step.
///
/// A parent's options hold the children's and pass shared values (threads) down, as COLMAP's.
public struct SurfaceOptions: Sendable, Equatable {
    /// Sets the Poisson depth (with the cloud's size) and the triangle cap. Default medium.
    public var detail: DetailLevel = .medium
    /// The room is the subject: unseen space must stay open, so trimming by distance is
    /// aggressive (``roomMaxDistanceSpacings``) and there is no region box. Default false.
    public var room = false
    /// The Poisson depth; nil chooses it from ``detail`` and the point count
    /// (``poissonDepth(pointCount:)``). Default nil.
    public var depth: Int?
    /// Objects: the region kept (e.g. the sparse points' robust extent); nil takes the cloud's
    /// own robust extent (``regionQuantile`` to its complement per axis, grown by
    /// ``regionMargin``). Rooms ignore it. Default nil.
    public var region: BoundingBox?
    /// The region's margin, a fraction of its size on every side. Default 0.1.
    public var regionMargin = 0.1
    /// Threads of the Poisson solver and the nearest-point searches. Default 2.
    public var numThreads = 2
    /// Poisson's settings (its depth is replaced by the chosen depth).
    public var poisson = PoissonOptions()
    /// Trimming for objects; rooms take ``roomTrim``.
    public var trim = TrimOptions()
    /// Repair and small pieces.
    public var clean = CleanOptions()
    /// Decimation to the level's cap.
    public var simplify = SimplifyOptions()

    /// A region's robust extent leaves this share of the points out on each side of each axis:
    /// a few stray points do not stretch it. 1 %, not more: an orbit's sparse points are mostly
    /// the ground, and at 2 % synthetic-orbit's box stopped below the object's top
    /// (docs/benchmarks.md).
    public static let regionQuantile = 0.01

    /// Rooms trim triangles farther than this many reference lengths from the cloud: a wall
    /// nobody filmed is empty, not a smooth guess. (Objects take the core's 2: their Poisson
    /// cells are a fraction of the region the cameras look at, a room's of the whole room, so
    /// 3 of a room's cells reach farther than 2 of an object's.)
    public static let roomMaxDistanceSpacings = 3.0
    /// Rooms also trim a larger share of the least supported surface.
    public static let roomDensityQuantile = 0.10
    /// Rooms keep pieces down to this fraction of the largest. A room's largest piece is its
    /// shell, and once the envelope is closed the whole of it: the rendered bare room's table,
    /// with the sphere and the cylinder on it, fell below the 2 % that objects keep.
    public static let roomMinComponentFraction = 0.002

    /// Creates the default options.
    public init() {}

    /// The trimming a run uses: ``trim`` for objects, with the region box; the room rule for rooms.
    public var effectiveTrim: TrimOptions {
        var trim = self.trim
        if room {
            trim.maxDistanceSpacings = Self.roomMaxDistanceSpacings
            trim.densityQuantile = max(trim.densityQuantile, Self.roomDensityQuantile)
            trim.box = nil
        }
        return trim
    }

    /// The repair a run uses: ``clean`` for objects; rooms keep smaller pieces.
    public var effectiveClean: CleanOptions {
        var clean = self.clean
        if room { clean.minComponentFraction = min(clean.minComponentFraction, Self.roomMinComponentFraction) }
        return clean
    }

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        func fail(_ message: String) -> CVisionError { CVisionError(code: .invalidArgument, message: "SurfaceOptions.\(message)") }
        if let depth { guard (5...12).contains(depth) else { throw fail("depth must be in 5...12") } }
        guard regionMargin >= 0, regionMargin <= 10 else { throw fail("regionMargin must be in [0, 10]") }
        guard (1...256).contains(numThreads) else { throw fail("numThreads must be in 1...256") }
        if let region { var t = TrimOptions(); t.box = region; try t.validate() }
        try poisson.validate()
        try trim.validate()
        try clean.validate()
        try simplify.validate()
    }
}
