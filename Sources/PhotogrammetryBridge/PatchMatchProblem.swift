import Foundation

/// What one depth map is computed from: a reference view, its sources and a depth range.
public struct PatchMatchProblem: Sendable, Equatable {
    /// Index of the reference view in the workspace.
    public var reference: Int
    /// Indices of the source views, best first (at most 64, none equal to `reference`).
    public var sources: [Int]
    /// The search range of z-depth in the reference camera (0 < lower < upper).
    public var depthRange: ClosedRange<Double>
    /// Sparse points seen by the reference, in world coordinates, for initialisation.
    public var pointsInWorld: [SIMD3<Double>]
    /// Which pass the map is. Default photometric.
    public var pass: Pass
    /// The reference's earlier depth map: its photometric map for the planar-prior pass, its
    /// latest map for the geometric pass. Nil in the photometric pass.
    public var previousDepth: URL?
    /// One depth map per source (nil skips that source), or empty; not read by the photometric pass.
    public var sourceDepths: [URL?]

    /// The passes over one reference view (`cvis_patch_match_pass`).
    public enum Pass: Int32, Sendable {
        /// Random and sparse initialisation, matching cost alone.
        case photometric = 0
        /// Starts from `previousDepth` and adds forward-backward consistency with `sourceDepths`.
        case geometric = 1
        /// Keeps `previousDepth`, the photometric map, and fills the pixels it left undecided from
        /// the planes of its confident pixels, each plane checked against `sourceDepths` (the
        /// sources' photometric maps). Needs ``PatchMatchOptions/planarPriors``.
        case planarPrior = 2
    }

    /// Creates a problem; the pass and its inputs default to a photometric pass.
    public init(reference: Int, sources: [Int], depthRange: ClosedRange<Double>,
                pointsInWorld: [SIMD3<Double>] = [], pass: Pass = .photometric,
                previousDepth: URL? = nil, sourceDepths: [URL?] = []) {
        self.reference = reference
        self.sources = sources
        self.depthRange = depthRange
        self.pointsInWorld = pointsInWorld
        self.pass = pass
        self.previousDepth = previousDepth
        self.sourceDepths = sourceDepths
    }
}
