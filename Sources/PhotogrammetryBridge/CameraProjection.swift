import CVision
import PhotogrammetryCore

/// Batch projection through the C++ camera models (the ones bundle adjustment uses).
extension Camera {
    /// Projects points in camera coordinates to pixels; NaN for points behind the camera.
    public func project(points pointsInCamera: [SIMD3<Double>]) throws -> [SIMD2<Double>] {
        let flat = pointsInCamera.packedCoordinates
        var pixels = [SIMD2<Double>](repeating: .zero, count: pointsInCamera.count)
        var params = self.params
        try pixels.withUnsafeMutableBytes { out in
            try check(cvis_project_points(Int32(model.rawValue), &params, Int32(pointsInCamera.count),
                                          flat, out.baseAddress?.assumingMemoryBound(to: Double.self)))
        }
        return pixels
    }

    /// Maps pixels to undistorted normalised coordinates (Newton inversion of the distortion).
    public func unproject(pixels: [SIMD2<Double>]) throws -> [SIMD2<Double>] {
        var normalized = [SIMD2<Double>](repeating: .zero, count: pixels.count)
        var params = self.params
        try pixels.withUnsafeBytes { input in
            try normalized.withUnsafeMutableBytes { out in
                try check(cvis_unproject_points(Int32(model.rawValue), &params, Int32(pixels.count),
                                                input.baseAddress?.assumingMemoryBound(to: Double.self),
                                                out.baseAddress?.assumingMemoryBound(to: Double.self)))
            }
        }
        return normalized
    }
}
