import CVision
import Foundation
import PhotogrammetryCore

/// Points read from a PLY file — a point cloud, or a mesh's vertices and triangles — owned by
/// the C++ core.
///
/// Immutable once made; several threads may read one cloud at once.
public final class PointCloud: @unchecked Sendable {
    package let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    /// A cloud the core made, whose handle this takes over.
    package convenience init(owning handle: OpaquePointer) { self.init(handle: handle) }

    deinit { cvis_cloud_destroy(handle) }

    /// Reads an ascii or binary (either byte order) PLY file.
    ///
    /// Keeps vertex x, y, z (float or double), normals nx, ny, nz and colours red, green, blue
    /// when all three are present, and faces (lists of vertex indices, polygons split into
    /// triangle fans); other elements and properties are skipped.
    /// - Throws: ``CVisionError`` naming the file: `.ioError` when it cannot be read,
    ///   `.decodeError` when it is not a well-formed PLY file.
    public static func load(_ url: URL) throws -> PointCloud {
        var handle: OpaquePointer?
        try check(cvis_cloud_load_ply(url.path, &handle))
        return PointCloud(handle: handle!)
    }

    /// A cloud (or mesh, with `triangles`) made from memory.
    ///
    /// - Parameters:
    ///   - points: Positions.
    ///   - normals: One per point, or nil.
    ///   - colors: RGB, one per point, or nil.
    ///   - triangles: Vertex indices into `points`, three per triangle.
    /// - Throws: ``CVisionError/Code/invalidArgument`` when a per-point array has the wrong length
    ///   or a triangle refers to a missing point.
    public convenience init(points: [SIMD3<Float>], normals: [SIMD3<Float>]? = nil,
                            colors: [SIMD3<UInt8>]? = nil, triangles: [SIMD3<Int32>] = []) throws {
        guard normals.map({ $0.count == points.count }) ?? true,
              colors.map({ $0.count == points.count }) ?? true else {
            throw CVisionError(code: .invalidArgument,
                               message: "PointCloud: normals and colours need one entry per point")
        }
        let flatPoints = points.flatMap { [$0.x, $0.y, $0.z] }
        let flatNormals = normals?.flatMap { [$0.x, $0.y, $0.z] }
        let flatColors = colors?.flatMap { [$0.x, $0.y, $0.z] }
        let flatTriangles = triangles.flatMap { [$0.x, $0.y, $0.z] }
        var handle: OpaquePointer?
        try check(cvis_cloud_create(Int64(points.count), flatPoints, flatNormals, flatColors,
                                    Int64(triangles.count), flatTriangles, &handle))
        self.init(handle: handle!)
    }

    /// Writes binary little-endian PLY (float x y z nx ny nz, uchar red green blue, and faces
    /// for a mesh) to `url`, through a temporary file and a rename.
    public func save(to url: URL) throws {
        try check(cvis_cloud_save_ply(handle, url.path))
    }

    /// This cloud's points, then `other`'s, as a new cloud (neither may be a mesh). A normal or
    /// colour that one of them lacks becomes a zero normal or grey when the other has it.
    public func joined(with other: PointCloud) throws -> PointCloud {
        var handle: OpaquePointer?
        try check(cvis_cloud_concat(self.handle, other.handle, &handle))
        return PointCloud(handle: handle!)
    }

    /// The number of points (a mesh's vertices).
    public var pointCount: Int { Int(cvis_cloud_num_points(handle)) }

    /// The number of triangles (0 for a point cloud).
    public var triangleCount: Int { Int(cvis_cloud_num_triangles(handle)) }

    /// Whether the file had normals.
    public var hasNormals: Bool { cvis_cloud_normals(handle) != nil }

    /// Whether the file had colours.
    public var hasColors: Bool { cvis_cloud_colors(handle) != nil }

    /// Calls `body` with the positions, x y z per point (`3 * pointCount` floats).
    public func withPoints<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: cvis_cloud_points(handle), count: 3 * pointCount))
    }

    /// The positions.
    public var points: [SIMD3<Float>] { Self.triples(cvis_cloud_points(handle), pointCount) }

    /// The normals, nil when the file had none.
    public var normals: [SIMD3<Float>]? {
        cvis_cloud_normals(handle).map { Self.triples($0, pointCount) }
    }

    /// The RGB colours, nil when the file had none.
    public var colors: [SIMD3<UInt8>]? {
        cvis_cloud_colors(handle).map { Self.triples($0, pointCount) }
    }

    /// The triangles as vertex indices.
    public var triangles: [SIMD3<Int32>] { Self.triples(cvis_cloud_triangles(handle), triangleCount) }

    /// Per vertex texture coordinates a PLY file gave (`s t`, `u v`), nil when it gave none.
    public var uvs: [SIMD2<Float>]? {
        cvis_cloud_uvs(handle).map { base in (0..<pointCount).map { SIMD2(base[2 * $0], base[2 * $0 + 1]) } }
    }

    /// Each triangle's texture page (a PLY face's `texnumber`), nil when the file gave none.
    public var triangleTextures: [Int32]? {
        cvis_cloud_triangle_textures(handle).map { Array(UnsafeBufferPointer(start: $0, count: triangleCount)) }
    }

    private static func triples<T: SIMDScalar>(_ base: UnsafePointer<T>?, _ count: Int) -> [SIMD3<T>] {
        guard let base, count > 0 else { return [] }
        return (0..<count).map { SIMD3(base[3 * $0], base[3 * $0 + 1], base[3 * $0 + 2]) }
    }

    /// Accuracy and completeness of this cloud (or mesh) against a reference surface.
    ///
    /// This cloud is first mapped into the reference frame by `similarity`; a mesh is sampled
    /// at `sampleSpacing`. Accuracy is the share of our points within `tau` of the reference
    /// surface (exact point-to-triangle distances), counting only points inside the region's
    /// bounding box when a region is given; completeness is the share of samples of the
    /// reference surface (the region's surface when given), spaced `sampleSpacing` apart by area,
    /// within `tau` of one of our points.
    ///
    /// - Parameters:
    ///   - reference: The reference mesh (or cloud), in reference units.
    ///   - region: A mesh of the part of the reference to evaluate, or nil for all of it.
    ///   - similarity: Maps this cloud into the reference frame.
    ///   - tau: The distance threshold, reference units.
    ///   - sampleSpacing: Spacing of surface samples; default `tau / 5`.
    /// - Returns: Percentages (0–100), counts, `tau` and the similarity.
    /// - Throws: ``CVisionError``: `.invalidArgument` for a non-positive `tau` or spacing,
    ///   `.limitExceeded` when the reference surface would need too many samples.
    public func compare(with reference: PointCloud, region: PointCloud? = nil,
                        similarity: Similarity3 = .init(), tau: Double,
                        sampleSpacing: Double? = nil) throws -> CloudComparison {
        let spacing = sampleSpacing ?? tau / 5
        var result = cvis_cloud_comparison()
        let rotation = similarity.rotation.rowMajor
        let translation = [similarity.translation.x, similarity.translation.y, similarity.translation.z]
        try check(cvis_compare_clouds(handle, reference.handle, region?.handle, similarity.scale,
                                      rotation, translation, tau, spacing, &result))
        return CloudComparison(
            accuracy: 100 * result.accuracy, completeness: 100 * result.completeness,
            f1: 100 * result.f1, tau: tau, sampleSpacing: spacing,
            evaluatedPoints: Int(result.evaluated_points),
            referenceSamples: Int(result.reference_samples), similarity: similarity)
    }
}
