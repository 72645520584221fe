import CVision
import Foundation

extension MVSWorkspace {
    /// Fuses the views' depth maps into one coloured point cloud with normals.
    ///
    /// For each view in order, every valid pixel not yet part of a point is checked against its
    /// neighbours' depth maps: a neighbour agrees when the pixel the point falls in is valid and
    /// unused, its depth is within ``FusionOptions/maxDepthError`` of the point's, its own point
    /// re-projects within ``FusionOptions/maxReprojectionError`` pixels of the reference pixel and
    /// the normals differ by at most ``FusionOptions/maxNormalErrorDeg``. With at least
    /// ``FusionOptions/minNumViews`` views (the reference included), the agreeing observations
    /// become one point — their mean position, normalised mean normal (world frame) and mean
    /// colour from the views' images — and are never used again. Depth maps are read through the
    /// workspace's cache, so memory stays bounded; the output does not depend on the thread count.
    ///
    /// - Parameters:
    ///   - depthMaps: One depth map per view (nil: the view has none and neither fuses nor votes).
    ///   - neighbours: For each view, the views it is checked against.
    ///   - options: Agreement limits and threads.
    ///   - output: Where the binary little-endian PLY (float x y z nx ny nz, uchar red green blue)
    ///     is written, through a temporary file and a rename.
    ///   - headerComment: One more `comment` line for the PLY header (one line; e.g. the cloud's
    ///     unit, `lengthUnit metres`), or nil.
    /// - Returns: The number of points written.
    /// - Throws: ``CVisionError``: `.invalidArgument` for invalid options, counts that do not
    ///   match the views, a bad neighbour index, a comment with a line break or a depth map whose
    ///   size is not its view's;
    ///   `.ioError` or `.decodeError` naming a file that cannot be read or written.
    public func fuse(depthMaps: [URL?], neighbours: [[Int]], options: FusionOptions = FusionOptions(),
                     output: URL, headerComment: String? = nil) throws -> Int {
        try options.validate()
        let count = views.count
        guard depthMaps.count == count, neighbours.count == count else {
            throw CVisionError(
                code: .invalidArgument,
                message: "fuse: \(count) views but \(depthMaps.count) depth maps and \(neighbours.count) neighbour lists")
        }
        var offsets: [Int32] = [0]
        var flat: [Int32] = []
        for (i, list) in neighbours.enumerated() {
            for j in list {
                guard (0..<count).contains(j), j != i else {
                    throw CVisionError(code: .invalidArgument, message: "fuse: view \(i) has a bad neighbour \(j) (\(count) views)")
                }
                flat.append(Int32(j))
            }
            offsets.append(Int32(flat.count))
        }
        var cOptions = options.cOptions()
        var points: Int64 = 0
        let status = withCStringArray(depthMaps.map { $0?.path }) { paths in
            offsets.withUnsafeBufferPointer { o in
                flat.withUnsafeBufferPointer { n in
                    cvis_fuse_depth_maps(handle, paths, o.baseAddress, n.baseAddress, &cOptions,
                                         output.path, headerComment, &points)
                }
            }
        }
        try check(status)
        return Int(points)
    }
}
