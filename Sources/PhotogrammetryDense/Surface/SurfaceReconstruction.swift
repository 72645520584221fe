import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Surface reconstruction from an oriented point cloud: screened Poisson, trimmed where the
/// cloud does not support it, repaired, coloured from the nearest points, decimated to the
/// detail level's cap.
///
/// Self-contained (options in, cloud in, meshes out, a progress callback that can cancel), so
/// the pipeline runs it as its surface stage as it is. Progress is a closure rather than the
/// pipeline's `ProgressSink`, so this layer does not depend on the one above it. The steps, in order:
/// 1. Poisson (Kazhdan and Hoppe 2013) at ``SurfaceOptions/poissonDepth(pointCount:)``.
/// 2. Trim: below a quantile of the surface's own densities, far from the cloud, outside the
///    region (objects), outside the masks' visual hull (objects with masks, ``VisualHull``).
/// 3. Clean: degenerate and duplicated triangles, non-manifold edges, pieces smaller than a
///    fraction of the largest.
/// 4. Colour: each vertex takes its nearest point's colour.
/// 5. Decimate below the level's cap (``DetailLevel/maxTriangles``; raw keeps all).
public struct SurfaceReconstruction: Sendable {
    public var options: SurfaceOptions

    /// The progress stage name.
    public static let stageName = "surface"
    /// The steps, as ``SurfaceResult/timings`` names them.
    public static let steps = ["poisson", "trim", "clean", "colour", "decimate"]

    public init(options: SurfaceOptions = SurfaceOptions()) {
        self.options = options
    }

    /// Runs the steps on `cloud` (which must have normals).
    /// - Parameter hull: the masks' visual hull the surface is cut to (objects with masks); nil
    ///   keeps it whole.
    /// - Parameter progress: called after each step with (done, total) steps; returning false
    ///   cancels.
    /// - Parameter stepStarted: called as each step starts with its description and, for
    ///   Poisson, its estimated seconds (``poissonSecondsEstimate(depth:points:threads:)``); nil
    ///   after the last: the steps are single calls into the core that report nothing meanwhile.
    /// - Throws: ``SurfaceError`` (no normals, cancelled, nothing left), ``CVisionError`` from
    ///   the core (invalid options, too few points).
    public func run(cloud: PointCloud, hull: VisualHull? = nil,
                    progress: ((_ done: Int, _ total: Int) -> Bool)? = nil,
                    stepStarted: ((_ step: String?, _ estimatedSeconds: Double?) -> Void)? = nil) throws -> SurfaceResult {
        try options.validate()
        guard cloud.hasNormals else { throw SurfaceError.noNormals }
        var timings: [SurfaceResult.StepTiming] = []
        var clock = Date()
        func step(_ name: String) throws {
            let now = Date()
            timings.append(.init(name: name, seconds: now.timeIntervalSince(clock)))
            clock = now
            let next = timings.count < Self.steps.count ? Self.steps[timings.count] : nil
            stepStarted?(next, nil)
            if let progress, !progress(timings.count, Self.steps.count) {
                throw SurfaceError.cancelled
            }
        }
        let (oriented, region) = try regionCloud(cloud)
        var poisson = options.poisson
        poisson.depth = options.poissonDepth(pointCount: oriented.pointCount)
        poisson.numThreads = options.numThreads
        try MemoryBudget.check(needs: Self.poissonBytes(depth: poisson.depth, points: oriented.pointCount),
                               for: "Poisson at depth \(poisson.depth) over \(oriented.pointCount) points")
        stepStarted?("poisson at depth \(poisson.depth) over \(oriented.pointCount) points",
                     Self.poissonSecondsEstimate(depth: poisson.depth, points: oriented.pointCount, threads: poisson.numThreads))
        let (mesh, cellSize) = try TriangleMesh.poisson(oriented, options: poisson)
        let poissonTriangles = mesh.triangleCount
        try step("poisson")

        var trim = options.effectiveTrim
        trim.box = region
        let trimmed = try mesh.trim(by: oriented, cellSize: cellSize, options: trim)
        let outsideHull = options.room ? 0 : try hull.map { try mesh.cut(to: $0, threads: options.numThreads) } ?? 0
        try step("trim")
        try mesh.clean(options: options.effectiveClean)
        guard mesh.triangleCount > 0 else { throw SurfaceError.nothingLeft }
        try step("clean")
        try mesh.transferColors(from: oriented)
        try step("colour")
        var decimated = mesh
        var usedClustering = false
        if let cap = options.detail.maxTriangles {
            (decimated, usedClustering) = try mesh.simplified(below: cap, options: options.simplify)
        }
        try step("decimate")
        return SurfaceResult(mesh: decimated, undecimated: mesh, depth: poisson.depth, cellSize: cellSize,
                             medianSpacing: oriented.medianSpacing, poissonTriangles: poissonTriangles,
                             trim: trimmed, outsideHullTriangles: outsideHull, usedClustering: usedClustering, timings: timings)
    }
}

extension SurfaceReconstruction {
    /// About what Poisson at `depth` over `points` points takes, for ``MemoryBudget``: its octree
    /// and the mesh it extracts grow with the surface at that resolution, about 4^depth cells,
    /// and it copies the cloud into its own doubles. The whole process peaked at 247 MB at depth
    /// 8 and 697 MB at depth 10 on templeRing's 386,065-point cloud (`mesh --detail preview`,
    /// `full`): some 460 bytes more per 4^depth; 500, and 150 bytes a point, leave a margin.
    /// The seconds Poisson is expected to take: 9 µs per point at depth 8, 1.6 times that per
    /// further level, on 2 threads (halved per doubling of the threads), for heartbeat lines.
    ///
    /// Fitted to this machine's idle runs (2 cores): templeRing-12 at preview, 386k points at
    /// depth 8, 3.5 s; a 48-image orbit at full, 4.07M points at depth 10, 100-110 s. It is an
    /// estimate and says so: the same call took 3.5 to 290 s with other work on the cores.
    public static func poissonSecondsEstimate(depth: Int, points: Int, threads: Int) -> Double {
        9e-6 * Double(points) * pow(1.6, Double(depth - 8)) * 2 / Double(max(threads, 1))
    }

    static func poissonBytes(depth: Int, points: Int) -> Int {
        500 * (1 << (2 * min(depth, 20))) + 150 * points
    }
}

/// Why surface reconstruction stopped.
public enum SurfaceError: Error, CustomStringConvertible, Equatable {
    /// The cloud has no normals (Poisson needs oriented points).
    case noNormals
    /// The progress sink asked to stop.
    case cancelled
    /// Trimming and cleaning left no triangles.
    case nothingLeft

    public var description: String {
        switch self {
        case .noNormals: return "the cloud has no normals (nx, ny, nz); meshing needs an oriented cloud such as dense.ply"
        case .cancelled: return "surface reconstruction cancelled"
        case .nothingLeft: return "trimming left no surface (the cloud is too sparse or too noisy for Poisson)"
        }
    }
}

extension SurfaceReconstruction {
    /// The cloud Poisson meshes and the box the mesh is trimmed to (objects; nil for rooms).
    ///
    /// An object's Poisson sees only its region, grown by twice the margin so that the surface
    /// reaches the trimming box whole: Poisson's cells divide the box of what it is given, and
    /// far background and stray points stretch that box (synthetic-orbit's cloud spans 35 m
    /// around an object of 2.5 m: at depth 10 a cell of the whole is 3.4 cm; docs/benchmarks.md).
    package func regionCloud(_ cloud: PointCloud) throws -> (OrientedCloud, BoundingBox?) {
        guard !options.room else { return (try OrientedCloud(cloud), nil) }
        let region: BoundingBox
        if let given = options.region {
            region = given
        } else {
            region = try OrientedCloud(cloud).quantileBox(lower: SurfaceOptions.regionQuantile,
                                                          upper: 1 - SurfaceOptions.regionQuantile)
        }
        return (try OrientedCloud(cloud, inside: region.expanded(by: 2 * options.regionMargin)),
                region.expanded(by: options.regionMargin))
    }
}
