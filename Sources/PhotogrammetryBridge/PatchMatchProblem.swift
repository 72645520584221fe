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
    /// False: the photometric pass. True: the geometric pass, which starts from
    /// `previousDepth` (the reference's photometric map) and checks consistency with
    /// `sourceDepths` (the sources' photometric maps; nil skips that source's geometric term).
    public var geometric: Bool
    /// The reference's photometric depth map (geometric pass only).
    public var previousDepth: URL?
    /// One photometric depth map per source (geometric pass only), or empty.
    public var sourceDepths: [URL?]

    /// Creates a problem; the geometric inputs default to a photometric pass.
    public init(reference: Int, sources: [Int], depthRange: ClosedRange<Double>,
                pointsInWorld: [SIMD3<Double>] = [], geometric: Bool = false,
                previousDepth: URL? = nil, sourceDepths: [URL?] = []) {
        self.reference = reference
        self.sources = sources
        self.depthRange = depthRange
        self.pointsInWorld = pointsInWorld
        self.geometric = geometric
        self.previousDepth = previousDepth
        self.sourceDepths = sourceDepths
    }
}
