import CVisionMesh
import PhotogrammetryCore

/// Where a Poisson surface is cut away (``TriangleMesh/trim(by:cellSize:options:)``),
/// mirroring `cvis_trim_options`.
public struct TrimOptions: Sendable, Equatable {
    /// Vertices whose Poisson density is below this quantile of the surface's own densities go
    /// (0: off). Relative, so that the rule adapts to the capture: an absolute level (COLMAP's
    /// trim 10) empties the meshes of sparse clouds. Default 0.05.
    public var densityQuantile = CoreDefaults.trim.density_quantile
    /// ... and below this fraction of the median density, so that a surface sampled evenly
    /// everywhere loses nothing. Default 0.5.
    public var densityMedianRatio = CoreDefaults.trim.density_median_ratio
    /// Triangles whose centroid is farther from the nearest cloud point than this many times
    /// the reference length (the larger of the median point spacing and the Poisson cell) go
    /// (0: off). Default 2: what Poisson spans farther from the cloud than two cells is a guess,
    /// while a hole of up to four cells stays closed; at one, holes open (docs/benchmarks.md).
    public var maxDistanceSpacings = CoreDefaults.trim.max_distance_spacings
    /// Triangles with a vertex outside this box go; nil keeps all. Default nil (the core's
    /// `use_box` 0).
    public var box: BoundingBox?

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        func fail(_ message: String) -> CVisionError { CVisionError(code: .invalidArgument, message: "TrimOptions.\(message)") }
        guard densityQuantile >= 0, densityQuantile < 1 else { throw fail("densityQuantile must be in [0, 1)") }
        guard densityMedianRatio >= 0, densityMedianRatio <= 1 else { throw fail("densityMedianRatio must be in [0, 1]") }
        guard maxDistanceSpacings >= 0, maxDistanceSpacings.isFinite else { throw fail("maxDistanceSpacings must be >= 0") }
        if let box {
            guard all(box.min .<= box.max), box.min.x.isFinite, box.max.x.isFinite, box.min.y.isFinite,
                  box.max.y.isFinite, box.min.z.isFinite, box.max.z.isFinite else {
                throw fail("box must be finite with min <= max")
            }
        }
    }

    func cOptions() -> cvis_trim_options {
        let box = box ?? BoundingBox(min: .zero, max: .zero)
        return cvis_trim_options(
            density_quantile: densityQuantile, density_median_ratio: densityMedianRatio, max_distance_spacings: maxDistanceSpacings,
            use_box: self.box == nil ? 0 : 1, box_min: (box.min.x, box.min.y, box.min.z),
            box_max: (box.max.x, box.max.y, box.max.z))
    }
}
