import CVision
import Foundation

/// A per-pixel depth, normal and matching cost map of one view, owned by the C++ core.
///
/// Depth is z-depth along the view's optical axis (0 = invalid); normals are unit vectors in the
/// view's camera frame pointing towards the camera; costs are 1 - NCC (plus the geometric term
/// after the geometric pass). Arrays are row-major, `width * height` entries (normals 3 each).
/// Not thread-safe for writing: use one map per thread or synchronise.
public final class DepthMap: @unchecked Sendable {
    package let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvis_depth_map_destroy(handle) }

    /// A new map of the given size with every pixel invalid (depth 0).
    /// - Throws: ``CVisionError/Code/invalidArgument`` for a size outside 1...32768.
    public convenience init(width: Int, height: Int) throws {
        guard (1...32768).contains(width), (1...32768).contains(height) else {
            throw CVisionError(code: .invalidArgument, message: "DepthMap: size \(width)x\(height) out of range")
        }
        var handle: OpaquePointer?
        try check(cvis_depth_map_create(Int32(width), Int32(height), &handle))
        self.init(handle: handle!)
    }

    /// Reads a depth map written by ``save(to:)`` or by PatchMatch.
    /// - Throws: ``CVisionError`` naming the file when it cannot be read or is not a depth map.
    public static func load(_ url: URL) throws -> DepthMap {
        var handle: OpaquePointer?
        try check(cvis_depth_map_load(url.path, &handle))
        return DepthMap(handle: handle!)
    }

    /// Writes the map to `url` (through a temporary file and a rename).
    public func save(to url: URL) throws {
        try check(cvis_depth_map_save(handle, url.path))
    }

    /// Width in pixels.
    public var width: Int { Int(cvis_depth_map_width(handle)) }
    /// Height in pixels.
    public var height: Int { Int(cvis_depth_map_height(handle)) }

    /// Calls `body` with the depths (`width * height`, row-major; 0 = invalid).
    public func withDepths<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: cvis_depth_map_depths(handle), count: width * height))
    }

    /// Calls `body` with the normals (`width * height * 3`, x y z per pixel, camera frame).
    public func withNormals<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: cvis_depth_map_normals(handle), count: width * height * 3))
    }

    /// Calls `body` with the costs (`width * height`, row-major).
    public func withCosts<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: cvis_depth_map_costs(handle), count: width * height))
    }

    /// The depth at pixel (`x`, `y`); 0 when invalid.
    public func depth(x: Int, y: Int) -> Float {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "DepthMap: pixel out of range")
        return cvis_depth_map_depths(handle)[y * width + x]
    }

    /// The unit normal at pixel (`x`, `y`) in the camera frame.
    public func normal(x: Int, y: Int) -> SIMD3<Float> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "DepthMap: pixel out of range")
        let n = cvis_depth_map_normals(handle) + 3 * (y * width + x)
        return SIMD3(n[0], n[1], n[2])
    }

    /// The share of pixels with a valid depth.
    public var validFraction: Double {
        withDepths { depths in Double(depths.reduce(0) { $0 + ($1 > 0 ? 1 : 0) }) / Double(max(1, depths.count)) }
    }
}
