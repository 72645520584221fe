import CVision
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
    /// The planar-prior pass: the room's envelope (``MVSWorkspace/roomEnvelope(depthMaps:seed:)``,
    /// six planes and two per notch) or empty. It then stands for the envelope the view would find
    /// in its own pixels, and fills what the view's own surfaces leave where the maps do not
    /// contradict it.
    public var envelope: [WorldPlane]

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
                previousDepth: URL? = nil, sourceDepths: [URL?] = [], envelope: [WorldPlane] = []) {
        self.reference = reference
        self.sources = sources
        self.depthRange = depthRange
        self.pointsInWorld = pointsInWorld
        self.pass = pass
        self.previousDepth = previousDepth
        self.sourceDepths = sourceDepths
        self.envelope = envelope
    }
}

/// A plane in world coordinates: `normal · X + offset = 0` (`cvis_mvs_plane`).
public struct WorldPlane: Sendable, Equatable {
    /// A unit vector.
    public var normal: SIMD3<Double>
    public var offset: Double

    public init(normal: SIMD3<Double>, offset: Double) {
        self.normal = normal
        self.offset = offset
    }

    var cPlane: cvis_mvs_plane {
        cvis_mvs_plane(normal: (normal.x, normal.y, normal.z), offset: offset)
    }
}
