import CVisionMesh

/// How a mesh is decimated to a triangle cap (``TriangleMesh/simplified(below:options:)``),
/// mirroring `cvis_simplify_options`.
public struct SimplifyOptions: Sendable, Equatable {
    /// The largest deviation edge collapse may introduce, relative to the mesh's extent, before
    /// it stops and clustering takes over. Default 1: no limit, the cap decides.
    public var targetError = CoreDefaults.simplify.target_error

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        guard targetError > 0, targetError <= 1 else {
            throw CVisionError(code: .invalidArgument, message: "SimplifyOptions.targetError must be in (0, 1]")
        }
    }

    func cOptions() -> cvis_simplify_options { cvis_simplify_options(target_error: targetError) }
}
