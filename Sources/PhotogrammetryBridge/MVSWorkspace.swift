import CVision
import Foundation

/// The views of one dense reconstruction, their undistorted images on disk and the C++ core's
/// bounded cache of them.
///
/// Images, masks and depth maps are read lazily and held up to `cacheBytes`, so memory does not
/// grow with the number of views. The core is thread-safe: several depth maps may be computed
/// concurrently on one workspace.
public final class MVSWorkspace: @unchecked Sendable {
    /// The C handle, for extensions (fusion) in this module.
    package let handle: OpaquePointer
    /// The views, in workspace order.
    public let views: [MVSView]

    /// Creates a workspace.
    ///
    /// - Parameters:
    ///   - views: The undistorted views with their poses.
    ///   - imageFiles: One undistorted image per view (its size must be the view's).
    ///   - maskFiles: One mask per view (nil: none), or empty for no masks at all.
    ///   - cacheBytes: Bytes of decoded images and depth maps kept in memory. Default 1 GiB.
    /// - Throws: ``CVisionError/Code/invalidArgument`` for mismatched counts or a bad view.
    public init(views: [MVSView], imageFiles: [URL], maskFiles: [URL?], cacheBytes: Int = 1 << 30) throws {
        guard imageFiles.count == views.count, maskFiles.isEmpty || maskFiles.count == views.count else {
            throw CVisionError(
                code: .invalidArgument,
                message: "MVSWorkspace: \(views.count) views but \(imageFiles.count) images and \(maskFiles.count) masks")
        }
        guard cacheBytes >= 0 else {
            throw CVisionError(code: .invalidArgument, message: "MVSWorkspace: cacheBytes must be >= 0")
        }
        let cViews = views.map(\.cView)
        let masks = maskFiles.isEmpty ? Array(repeating: nil, count: views.count) : maskFiles.map { $0?.path }
        var handle: OpaquePointer?
        let status = cViews.withUnsafeBufferPointer { v in
            withCStringArray(imageFiles.map(\.path)) { images in
                withCStringArray(masks) { m in
                    cvis_mvs_workspace_create(Int32(views.count), v.baseAddress, images, m, UInt64(cacheBytes), &handle)
                }
            }
        }
        try check(status)
        self.handle = handle!
        self.views = views
    }

    deinit { cvis_mvs_workspace_destroy(handle) }

    /// Bytes the cache holds now (never above `cacheBytes`).
    public var cachedBytes: Int { Int(cvis_mvs_workspace_cached_bytes(handle)) }

    /// Runs one PatchMatch pass for `problem.reference` and writes its depth map to `output`
    /// (through a temporary file and a rename).
    ///
    /// - Throws: ``CVisionError`` for invalid options or problem, or an unreadable input file.
    public func computeDepthMap(_ problem: PatchMatchProblem, options: PatchMatchOptions, output: URL) throws {
        try options.validate()
        guard problem.sources.count <= 64, problem.sourceDepths.isEmpty || problem.sourceDepths.count == problem.sources.count else {
            throw CVisionError(
                code: .invalidArgument,
                message: "PatchMatchProblem: \(problem.sources.count) sources (at most 64) and \(problem.sourceDepths.count) source depth maps")
        }
        if problem.pass != .photometric, problem.previousDepth == nil {
            throw CVisionError(code: .invalidArgument, message: "PatchMatchProblem: the \(problem.pass) pass needs previousDepth")
        }
        var cOptions = options.cOptions
        let sources = problem.sources.map { Int32($0) }
        let points = problem.pointsInWorld.flatMap { [$0.x, $0.y, $0.z] }
        // The previous depth map rides along as the array's last entry, so one call owns every string.
        let paths = problem.sourceDepths.map { $0?.path } + [problem.previousDepth?.path]
        let envelope = problem.envelope.map(\.cPlane)
        let status = sources.withUnsafeBufferPointer { s in
            points.withUnsafeBufferPointer { p in
                envelope.withUnsafeBufferPointer { e in
                    withCStringArray(paths) { d in
                        var c = cvis_patch_match_problem()
                        c.reference = Int32(problem.reference)
                        c.num_sources = Int32(sources.count)
                        c.sources = s.baseAddress
                        c.depth_min = problem.depthRange.lowerBound
                        c.depth_max = problem.depthRange.upperBound
                        c.num_points = Int32(problem.pointsInWorld.count)
                        c.points_in_world = problem.pointsInWorld.isEmpty ? nil : p.baseAddress
                        c.pass = problem.pass.rawValue
                        c.previous_depth_path = d![problem.sourceDepths.count]
                        c.source_depth_paths = problem.sourceDepths.isEmpty ? nil : d
                        c.num_envelope_planes = Int32(envelope.count)
                        c.envelope_planes = envelope.isEmpty ? nil : e.baseAddress
                        return cvis_patch_match(handle, &c, &cOptions, output.path)
                    }
                }
            }
        }
        try check(status)
    }

    /// The envelope of a room seen from inside (floor, ceiling and four walls, normals into the
    /// room), found among the sure pixels of every view's photometric depth map together
    /// (`cvis_mvs_room_envelope`): the box's six planes, then two faces per notch (a corner of
    /// the box walled off, as in an L: what lies behind both faces), or none when no square box
    /// is the room's (a camera outside it, a plane not square with it or across it inside, a side
    /// the views see beyond).
    ///
    /// - Parameter depthMaps: One photometric depth map per view, in workspace order (nil: none).
    /// - Throws: ``CVisionError`` for a wrong count or an unreadable map.
    public func roomEnvelope(depthMaps: [URL?], seed: UInt64 = 0) throws -> [WorldPlane] {
        guard depthMaps.count == views.count else {
            throw CVisionError(code: .invalidArgument,
                               message: "roomEnvelope: \(depthMaps.count) depth maps for \(views.count) views")
        }
        var planes = [cvis_mvs_plane](repeating: cvis_mvs_plane(), count: Int(CVIS_MVS_ROOM_ENVELOPE_MAX_PLANES))
        var count: Int32 = 0
        let status = withCStringArray(depthMaps.map { $0?.path }) { paths in
            planes.withUnsafeMutableBufferPointer { cvis_mvs_room_envelope(handle, paths, seed, $0.baseAddress, &count) }
        }
        try check(status)
        return planes.prefix(Int(count)).map {
            WorldPlane(normal: SIMD3($0.normal.0, $0.normal.1, $0.normal.2), offset: $0.offset)
        }
    }

    /// Points that close the room's envelope (``roomEnvelope(depthMaps:seed:)``) where `cloud`
    /// has none and no view sees through (`depthMaps`, one per view, nil skips one): the floor
    /// under the furniture and in the middle of the room, the ceiling overhead, the walls behind
    /// the cupboards; not a doorway or a window. Each has its face's normal into the room and its
    /// face's colour (the median of `cloud`'s points on it). The rules are `cvis_mvs_close_envelope`'s.
    /// - Returns: the points, and the area they stand for (in the model's units squared).
    public func closeEnvelope(_ planes: [WorldPlane], depthMaps: [URL?], cloud: PointCloud,
                              threads: Int) throws -> (points: PointCloud, area: Double) {
        guard depthMaps.count == views.count else {
            throw CVisionError(code: .invalidArgument,
                               message: "closeEnvelope: \(depthMaps.count) depth maps for \(views.count) views")
        }
        let flat = planes.map(\.cPlane)
        var closing: OpaquePointer?
        var area = 0.0
        try check(withCStringArray(depthMaps.map { $0?.path }) { paths in
            cvis_mvs_close_envelope(handle, paths, flat, Int32(flat.count), cloud.handle, Int32(threads), &closing, &area)
        })
        return (PointCloud(owning: closing!), area)
    }
}
