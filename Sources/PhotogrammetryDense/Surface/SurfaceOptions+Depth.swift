import Foundation

/// The Poisson depth: fine enough for the level's cap, no finer than the cloud supports.
extension SurfaceOptions {
    /// The deepest octree the level asks for. Poisson's triangles grow about 4x per level (a
    /// compact object at depth 8 gives some 300k before trimming), and decimation to the cap
    /// keeps detail best from a surface a few times larger than the cap: preview 8, reduced
    /// and medium 9, full and raw 10.
    public var levelDepth: Int {
        switch detail {
        case .preview: return 8
        case .reduced, .medium: return 9
        case .full, .raw: return 10
        }
    }

    /// The depth a cloud of `pointCount` points supports: cells about as large as the point
    /// spacing. A surface of N points spans about sqrt(N) spacings, so 2^depth ≈ sqrt(N):
    /// depth = floor(log2(N) / 2) + 1 (one level finer, since the cube is wider than the
    /// surface). Deeper only fits noise and costs memory (4x a level).
    public static func cloudDepth(pointCount: Int) -> Int {
        Int(log2(Double(max(pointCount, 2))) / 2) + 1
    }

    /// The depth a run uses: ``depth`` when set, else the smaller of ``levelDepth`` and
    /// ``cloudDepth(pointCount:)``, at least 5.
    public func poissonDepth(pointCount: Int) -> Int {
        depth ?? max(5, min(levelDepth, Self.cloudDepth(pointCount: pointCount)))
    }
}
