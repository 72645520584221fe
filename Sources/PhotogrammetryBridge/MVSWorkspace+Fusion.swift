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
    ///   - sensorDepths: Per view, a sensor depth map (``sensorDepthMap(view:depth:camera:output:)``)
    ///     and the factor from its metres to the model's units, or nil; empty: none. After the
    ///     photometric maps, the sensor maps are fused the same way over the pixels no point took,
    ///     agreeing within ``FusionOptions/maxSensorDepthError`` in
    ///     ``FusionOptions/minNumSensorViews`` views, each view checked against its `neighbours`
    ///     and the ``FusionOptions/numSensorNeighbours`` views whose sensor depth shares the most
    ///     surface with its own: the photographs' points are those made without sensor depth, and
    ///     the sensor fills what they could not agree on.
    /// - Returns: The number of points written, and of them those made from sensor depth.
    /// - Throws: ``CVisionError``: `.invalidArgument` for invalid options, counts that do not
    ///   match the views, a bad neighbour index, a comment with a line break or a depth map whose
    ///   size is not its view's;
    ///   `.ioError` or `.decodeError` naming a file that cannot be read or written.
    public func fuse(depthMaps: [URL?], sensorDepths: [(url: URL, scale: Double)?] = [], neighbours: [[Int]],
                     options: FusionOptions = FusionOptions(), output: URL,
                     headerComment: String? = nil) throws -> (points: Int, sensorPoints: Int) {
        try options.validate()
        let count = views.count
        guard depthMaps.count == count, neighbours.count == count, sensorDepths.isEmpty || sensorDepths.count == count else {
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
        var points: Int64 = 0, sensorPoints: Int64 = 0
        let scales = sensorDepths.map { $0?.scale ?? 1 }
        let status = withCStringArray(depthMaps.map { $0?.path }) { paths in
            withCStringArray(sensorDepths.map { $0?.url.path }) { sensorPaths in
                offsets.withUnsafeBufferPointer { o in
                    flat.withUnsafeBufferPointer { n in
                        scales.withUnsafeBufferPointer { s in
                            var sensor = cvis_fusion_sensor_depths(depth_paths: sensorDepths.isEmpty ? nil : sensorPaths,
                                                                   scales: s.baseAddress)
                            return cvis_fuse_depth_maps_with_sensor(handle, paths, &sensor, o.baseAddress, n.baseAddress,
                                                                    &cOptions, output.path, headerComment, &points,
                                                                    &sensorPoints)
                        }
                    }
                }
            }
        }
        try check(status)
        return (Int(points), Int(sensorPoints))
    }
}
