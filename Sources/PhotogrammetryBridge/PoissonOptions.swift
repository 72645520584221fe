import CVisionMesh

/// Options of screened Poisson reconstruction (``TriangleMesh/poisson(_:options:)``),
/// mirroring `cvis_poisson_options`.
public struct PoissonOptions: Sendable, Equatable {
    /// Octree depth: the grid has 2^depth cells along the cloud's longest side. Each level
    /// quadruples the triangles (and about triples the time). Default 8.
    public var depth = Int(CoreDefaults.poisson.depth)
    /// The octree's cube relative to the cloud's bounding cube. Default 1.1.
    public var scale = CoreDefaults.poisson.scale
    /// Places iso-vertices by linear interpolation instead of the default fit. Default false.
    public var linearFit = CoreDefaults.poisson.linear_fit != 0
    /// Threads of the solver. Default 2.
    public var numThreads = Int(CoreDefaults.poisson.num_threads)

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        func fail(_ message: String) -> CVisionError { CVisionError(code: .invalidArgument, message: "PoissonOptions.\(message)") }
        guard (1...14).contains(depth) else { throw fail("depth must be in 1...14") }
        guard scale >= 1, scale <= 4 else { throw fail("scale must be in [1, 4]") }
        guard (1...256).contains(numThreads) else { throw fail("numThreads must be in 1...256") }
    }

    func cOptions() -> cvis_poisson_options {
        cvis_poisson_options(depth: Int32(depth), scale: scale, linear_fit: linearFit ? 1 : 0,
                             num_threads: Int32(numThreads))
    }
}
