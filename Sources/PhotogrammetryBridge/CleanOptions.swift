import CVisionMesh

/// How a mesh is tidied (``TriangleMesh/clean(options:)``), mirroring `cvis_clean_options`.
public struct CleanOptions: Sendable, Equatable {
    /// Clusters of connected triangles smaller than this fraction of the largest go (floaters,
    /// fused noise). Default 0.02.
    public var minComponentFraction = CoreDefaults.clean.min_component_fraction

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        guard minComponentFraction >= 0, minComponentFraction <= 1 else {
            throw CVisionError(code: .invalidArgument, message: "CleanOptions.minComponentFraction must be in [0, 1]")
        }
    }

    func cOptions() -> cvis_clean_options { cvis_clean_options(min_component_fraction: minComponentFraction) }
}
