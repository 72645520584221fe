import CVision
import CVisionMesh
import Foundation

/// The masks' visual hull of an object capture: what no masked view says is background.
///
/// Poisson closes the surface wherever the cloud stops, so an object's mesh bulges into space
/// its photos show empty (between a pillar and a ball, below an overhang); a masked view that
/// sees such a triangle on background disproves it. Masks are grown by ``dilationShare`` of
/// the view's longer side first, so that a pixel of pose error or a mask drawn a little tight
/// never cuts the object itself.
public struct VisualHull: Sendable {
    /// Pinhole views (the dense stage's undistorted views) and their masks (8-bit, 0 = background).
    public var views: [MVSView]
    public var maskURLs: [URL]
    /// How far masks are grown, a share of each view's longer side. Default 0.01 (8 px at 800).
    public var dilationShare = VisualHull.defaultDilationShare
    /// Views that must see a point on background. Default 1: one photo showing empty space
    /// there is evidence enough (the visual hull's definition).
    public var minViews = 1

    /// The grown share of the longer side, written once.
    public static let defaultDilationShare = 0.01

    public init(views: [MVSView], maskURLs: [URL]) {
        precondition(views.count == maskURLs.count, "one mask per view")
        self.views = views
        self.maskURLs = maskURLs
    }

    /// Whether each point (packed x, y, z) lies outside the hull.
    public func outside(points: [Float], threads: Int) throws -> [Bool] {
        guard let longest = views.map({ max($0.width, $0.height) }).max() else { return Array(repeating: false, count: points.count / 3) }
        var flags = [UInt8](repeating: 0, count: points.count / 3)
        let status = withCStringArray(maskURLs.map(\.path)) { masks in
            cvis_visual_hull_outside(Int64(flags.count), points, Int32(views.count), views.map(\.cView), masks,
                                     dilationShare * Double(longest), Int32(minViews), Int32(threads), &flags)
        }
        try check(status)
        return flags.map { $0 != 0 }
    }
}

extension TriangleMesh {
    /// Removes the triangles whose centroid lies outside `hull`; returns how many went.
    @discardableResult
    public func cut(to hull: VisualHull, threads: Int) throws -> Int {
        var centroids = [Float](repeating: 0, count: 3 * triangleCount)
        cvis_mesh_copy_triangle_centroids(handle, &centroids)
        let outside = try hull.outside(points: centroids, threads: threads)
        let removed = outside.filter { $0 }.count
        guard removed > 0 else { return 0 }
        try check(cvis_mesh_remove_triangles(handle, outside.map { $0 ? 1 : 0 }))
        return removed
    }
}
