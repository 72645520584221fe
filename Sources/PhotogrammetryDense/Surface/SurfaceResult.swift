import PhotogrammetryBridge

/// What ``SurfaceReconstruction/run(cloud:progress:)`` made.
public struct SurfaceResult: @unchecked Sendable {
    /// The mesh at the detail level (below its cap; the undecimated mesh for raw).
    public var mesh: TriangleMesh
    /// The trimmed, cleaned, coloured surface before decimation.
    public var undecimated: TriangleMesh
    /// The Poisson depth used.
    public var depth: Int
    /// The finest Poisson cell's side, scene units.
    public var cellSize: Double
    /// The cloud's median nearest-neighbour distance, scene units.
    public var medianSpacing: Double
    /// Triangles straight out of Poisson.
    public var poissonTriangles: Int
    /// What trimming removed.
    public var trim: TriangleMesh.TrimSummary
    /// Triangles cut because a masked view sees them on background (0 without a hull).
    public var outsideHullTriangles: Int
    /// Whether decimation needed clustering to reach the cap.
    public var usedClustering: Bool
    /// Seconds per step, in order (``SurfaceReconstruction/steps``).
    public var timings: [StepTiming]

    /// One step's time.
    public struct StepTiming: Sendable, Equatable, Codable {
        public var name: String
        public var seconds: Double
    }
}
