import CVisionMesh
import PhotogrammetryCore

/// Options of ``TriangleMesh/align(_:options:)``. Defaults from the mesh core.
public struct AlignmentOptions: Sendable, Equatable {
    /// Points sampled on the mesh, uniformly by area. Default 200,000.
    public var samples = Int(CoreDefaults.align.num_samples)
    /// First correspondence distance, as a share of the mesh's bounding-box diagonal; halved
    /// each round. Default 0.05: the priors' frame may be a few per cent off the mesh's.
    public var startDistance = CoreDefaults.align.start_distance
    /// Last correspondence distance, same unit. Default 0.005.
    public var endDistance = CoreDefaults.align.end_distance
    /// A similarity (true) or a rigid motion. Default true.
    public var withScale = CoreDefaults.align.with_scale != 0

    public init() {}

    var cOptions: cvis_align_options {
        var options = CoreDefaults.align
        options.num_samples = Int32(clamping: samples)
        options.start_distance = startDistance
        options.end_distance = endDistance
        options.with_scale = withScale ? 1 : 0
        return options
    }
}

extension TriangleMesh {
    /// How well points lie on the mesh after ``align(_:options:)``.
    public struct AlignmentFit: Sendable {
        /// The similarity that takes the points onto the surface.
        public var similarity: Similarity3
        /// Share of the points within the last correspondence distance of the surface.
        public var fitness: Double
        /// RMS distance of those points, in the mesh's units.
        public var rmse: Double
    }

    /// The similarity that brings `points` onto this mesh's surface: ICP from the identity with
    /// a tightening correspondence distance (points off the mesh drop out as it tightens).
    /// - Throws: ``CVisionError``: `.notEnoughData` with fewer than 3 points.
    public func align(_ points: [SIMD3<Double>], options: AlignmentOptions = AlignmentOptions()) throws -> AlignmentFit {
        var cOptions = options.cOptions
        var matrix = [Double](repeating: 0, count: 16)
        var stats = cvis_align_stats()
        try check(cvis_mesh_align_points(handle, Int64(points.count), points.flatMap { [$0.x, $0.y, $0.z] },
                                         &cOptions, &matrix, &stats))
        // [sR t; 0 1]: the scale is the length of a column of sR.
        let linear = Matrix3(rowMajor: [matrix[0], matrix[1], matrix[2], matrix[4], matrix[5], matrix[6],
                                        matrix[8], matrix[9], matrix[10]])
        let scale = length(linear * SIMD3<Double>(1, 0, 0))
        let similarity = Similarity3(scale: scale, rotation: (1 / scale) * linear,
                                     translation: SIMD3(matrix[3], matrix[7], matrix[11]))
        return AlignmentFit(similarity: similarity, fitness: stats.fitness, rmse: stats.rmse)
    }
}
