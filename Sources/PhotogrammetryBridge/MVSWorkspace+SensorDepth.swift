import CVision
import Foundation
import PhotogrammetryCore

extension MVSWorkspace {
    /// A phone's depth image (LiDAR or TrueDepth), registered to the photo, brought into view
    /// `view` and written as a depth map fusion reads beside the photometric one.
    ///
    /// Each depth pixel is first replaced by the plane fitted to its 5 × 5 neighbours on the same
    /// surface (within 4 %: the sensor's per-pixel noise is independent, the surface smooth over
    /// that footprint);
    /// a view pixel then reads the depth bilinearly where its four depth pixels are one surface,
    /// else it has none, so no depth is invented between a wall and what stands before it. Pixels
    /// the view's mask drops have none. Normals come from the depth one depth pixel apart; a pixel
    /// at the rim of a hole, whose normal cannot be told, is dropped.
    ///
    /// - Parameters:
    ///   - depth: Z-depth in metres, `width` × `height`, row-major from the top-left, covering the
    ///     upright photo `camera` describes (same aspect); 0 or non-finite = none.
    ///   - confidence: ARKit's level per depth pixel (0 low, 1 medium, 2 high), or nil.
    ///   - minConfidence: Pixels of a lower level are dropped.
    ///   - camera: The photo's camera, whose distortion the view removed.
    ///   - output: The depth map file (temporary name, then rename).
    /// - Returns: The view pixels that have depth.
    /// - Throws: ``CVisionError`` for a depth image of another aspect, a bad view or camera, or a
    ///   file that cannot be written.
    public func sensorDepthMap(view: Int, depth: [Float], confidence: [UInt8]?, width: Int, height: Int,
                               minConfidence: Int, camera: Camera, output: URL) throws -> Int {
        guard depth.count == width * height, confidence.map({ $0.count == depth.count }) ?? true else {
            throw CVisionError(code: .invalidArgument,
                               message: "sensorDepthMap: \(depth.count) depths and \(confidence?.count ?? 0) confidences "
                                   + "for \(width)x\(height)")
        }
        var params = camera.params
        params += Array(repeating: 0, count: max(0, Int(CVIS_CAMERA_PARAMS_STRIDE) - params.count))
        var valid: Int64 = 0
        let status = depth.withUnsafeBufferPointer { d in
            params.withUnsafeBufferPointer { p in
                withOptionalBuffer(confidence) { c in
                    cvis_mvs_sensor_depth_map(handle, Int32(view), d.baseAddress, c, Int32(width), Int32(height),
                                              Int32(minConfidence), Int32(camera.model.rawValue), p.baseAddress,
                                              Int32(camera.width), Int32(camera.height), output.path, &valid)
                }
            }
        }
        try check(status)
        return Int(valid)
    }

    /// How a view's measured depth map agrees with its sensor depth map: over the pixels both
    /// have, the median of measured / sensor, the median relative deviation from it, and the count.
    public static func depthRatio(measured: URL, sensor: URL) throws -> (median: Double, spread: Double, count: Int) {
        var median = 0.0, spread = 0.0
        var count: Int64 = 0
        try check(cvis_depth_map_ratio(measured.path, sensor.path, &median, &spread, &count))
        return (median, spread, Int(count))
    }
}

private func withOptionalBuffer<R>(_ values: [UInt8]?, _ body: (UnsafePointer<UInt8>?) -> R) -> R {
    guard let values else { return body(nil) }
    return values.withUnsafeBufferPointer { body($0.baseAddress) }
}
