import CVision
import CVisionMesh
import PhotogrammetryCore

/// An oriented point cloud in a KD-tree, owned by the mesh core: the input of Poisson
/// reconstruction, and the reference for trimming by distance and for vertex colours.
///
/// Immutable once made; several threads may query one cloud at once.
public final class OrientedCloud: @unchecked Sendable {
    package let handle: OpaquePointer

    deinit { cvis_mesh_cloud_destroy(handle) }

    /// The cloud of `points` (a PLY file read by ``PointCloud/load(_:)``), which must have normals,
    /// keeping only those inside `box` when one is given.
    /// - Throws: ``CVisionError``: `.invalidArgument` without normals or with a zero normal or
    ///   a non-finite point, `.notEnoughData` below 16 points kept.
    public init(_ points: PointCloud, inside box: BoundingBox? = nil) throws {
        guard let normals = cvis_cloud_normals(points.handle) else {
            throw CVisionError(code: .invalidArgument, message: "the cloud has no normals (nx, ny, nz)")
        }
        var handle: OpaquePointer?
        let bounds = box.map { [$0.min.x, $0.min.y, $0.min.z, $0.max.x, $0.max.y, $0.max.z] }
        try check(cvis_mesh_cloud_create(Int64(points.pointCount), cvis_cloud_points(points.handle),
                                         normals, cvis_cloud_colors(points.handle), bounds, &handle))
        self.handle = handle!
    }

    /// The number of points.
    public var pointCount: Int { Int(cvis_mesh_cloud_num_points(handle)) }

    /// The median distance from a point to its nearest neighbour: the capture's length scale.
    public var medianSpacing: Double { cvis_mesh_cloud_median_spacing(handle) }

    /// Per axis, the `lower` and `upper` quantiles of the coordinates: the extent without outliers.
    public func quantileBox(lower: Double = 0.01, upper: Double = 0.99) throws -> BoundingBox {
        var low = [Double](repeating: 0, count: 3), high = low
        try check(cvis_mesh_cloud_quantile_box(handle, lower, upper, &low, &high))
        return BoundingBox(min: SIMD3(low[0], low[1], low[2]), max: SIMD3(high[0], high[1], high[2]))
    }

    /// The distance from each of `queries` to the nearest point of the cloud.
    public func nearestDistances(_ queries: [SIMD3<Float>]) throws -> [Double] {
        let flat = queries.flatMap { [$0.x, $0.y, $0.z] }
        var distances = [Double](repeating: 0, count: queries.count)
        try check(cvis_mesh_cloud_nearest_distances(handle, Int64(queries.count), flat, &distances))
        return distances
    }
}
