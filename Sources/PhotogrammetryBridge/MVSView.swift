import CVision
import Foundation
import PhotogrammetryCore

/// A pinhole view of the dense stage: an undistorted image's size, intrinsics and pose.
///
/// Pixel coordinates follow COLMAP: the top-left image corner is (0, 0) and the centre of pixel
/// (col, row) is (col + 0.5, row + 0.5); a camera point (X, Y, Z) projects to
/// (fx X/Z + cx, fy Y/Z + cy).
public struct MVSView: Equatable, Sendable {
    /// Width in pixels (the working size of the undistorted image).
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Focal length along x, pixels.
    public var fx: Double
    /// Focal length along y, pixels.
    public var fy: Double
    /// Principal point x, pixels.
    public var cx: Double
    /// Principal point y, pixels.
    public var cy: Double
    /// The pose, `x_cam = rotation * x_world + translation`.
    public var camFromWorld: Rigid3

    /// Creates a view.
    public init(width: Int, height: Int, fx: Double, fy: Double, cx: Double, cy: Double,
                camFromWorld: Rigid3 = .identity) {
        self.width = width
        self.height = height
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.camFromWorld = camFromWorld
    }

    /// The view as the C core takes it.
    var cView: cvis_mvs_view {
        var view = cvis_mvs_view()
        view.width = Int32(width)
        view.height = Int32(height)
        view.fx = fx
        view.fy = fy
        view.cx = cx
        view.cy = cy
        let r = camFromWorld.rotation.rowMajor
        withUnsafeMutableBytes(of: &view.rotation) { raw in
            let values = raw.bindMemory(to: Double.self)
            for i in 0..<9 { values[i] = r[i] }
        }
        let t = camFromWorld.translation
        view.translation = (t.x, t.y, t.z)
        return view
    }

    /// A view from the C core's struct.
    package init(_ view: cvis_mvs_view) {
        var copy = view
        let r = withUnsafeBytes(of: &copy.rotation) { Array($0.bindMemory(to: Double.self)) }
        self.init(
            width: Int(view.width), height: Int(view.height), fx: view.fx, fy: view.fy,
            cx: view.cx, cy: view.cy,
            camFromWorld: Rigid3(
                rotation: Matrix3(rowMajor: r),
                translation: SIMD3(view.translation.0, view.translation.1, view.translation.2)))
    }

    /// Projects a world point to pixels; nil when it is not in front of the camera.
    public func project(_ pointInWorld: SIMD3<Double>) -> SIMD2<Double>? {
        let p = camFromWorld.apply(pointInWorld)
        guard p.z > 1e-12 else { return nil }
        return SIMD2(fx * p.x / p.z + cx, fy * p.y / p.z + cy)
    }
}
