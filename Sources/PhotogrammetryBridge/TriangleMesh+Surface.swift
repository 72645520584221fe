import CVisionMesh

/// The steps of surface reconstruction over the mesh core: Poisson, trimming, repair, colours,
/// decimation. ``SurfaceReconstruction`` runs them in order.
extension TriangleMesh {
    /// What trimming removed (``trim(by:cellSize:options:)``).
    public struct TrimSummary: Sendable, Equatable {
        /// Vertices below the density quantile.
        public var lowDensityVertices: Int
        /// Triangles too far from every cloud point.
        public var farTriangles: Int
        /// Triangles leaving the box.
        public var outsideTriangles: Int
        /// The density the quantile gave (an octree depth).
        public var densityThreshold: Double
        /// The distance limit, scene units (0 when off).
        public var distanceThreshold: Double
    }

    /// Screened Poisson reconstruction of `cloud`; the mesh keeps each vertex's density for
    /// ``trim(by:cellSize:options:)``.
    /// - Returns: The surface and the side of the finest octree cell, scene units.
    public static func poisson(_ cloud: OrientedCloud, options: PoissonOptions) throws -> (mesh: TriangleMesh, cellSize: Double) {
        try options.validate()
        var handle: OpaquePointer?
        var cellSize = 0.0
        var c = options.cOptions()
        try check(cvis_mesh_poisson(cloud.handle, &c, &handle, &cellSize))
        return (TriangleMesh(handle: handle!), cellSize)
    }

    /// Cuts the surface where `cloud` does not support it: low density, far from every point,
    /// outside the box.
    @discardableResult
    public func trim(by cloud: OrientedCloud, cellSize: Double, options: TrimOptions) throws -> TrimSummary {
        try options.validate()
        var c = options.cOptions()
        var stats = cvis_trim_stats()
        try check(cvis_mesh_trim(handle, cloud.handle, cellSize, &c, &stats))
        return TrimSummary(lowDensityVertices: Int(stats.low_density_vertices), farTriangles: Int(stats.far_triangles),
                           outsideTriangles: Int(stats.outside_triangles), densityThreshold: stats.density_threshold,
                           distanceThreshold: stats.distance_threshold)
    }

    /// Repairs the mesh (degenerate and duplicated triangles, non-manifold edges), drops small
    /// pieces and unused vertices, and recomputes normals.
    public func clean(options: CleanOptions) throws {
        try options.validate()
        var c = options.cOptions()
        try check(cvis_mesh_clean(handle, &c))
    }

    /// Gives each vertex the colour of its nearest point in `cloud`.
    public func transferColors(from cloud: OrientedCloud) throws {
        try check(cvis_mesh_transfer_colors(handle, cloud.handle))
    }

    /// A copy with fewer than `maxTriangles` triangles (edge collapse, clustering as fallback).
    /// - Returns: The mesh and whether clustering was needed.
    public func simplified(below maxTriangles: Int, options: SimplifyOptions = SimplifyOptions()) throws -> (mesh: TriangleMesh, usedClustering: Bool) {
        try options.validate()
        var c = options.cOptions()
        var handle: OpaquePointer?
        var sloppy: Int32 = 0
        try check(cvis_mesh_simplify(self.handle, Int64(maxTriangles), &c, &handle, &sloppy))
        return (TriangleMesh(handle: handle!), sloppy != 0)
    }
}
