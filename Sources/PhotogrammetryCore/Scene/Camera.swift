import Foundation

/// A camera model, with COLMAP's names, numbers and parameter order.
public enum CameraModel: Int, Sendable, CaseIterable {
    /// f, cx, cy
    case simplePinhole = 0
    /// fx, fy, cx, cy
    case pinhole = 1
    /// f, cx, cy, k
    case simpleRadial = 2
    /// f, cx, cy, k1, k2
    case radial = 3
    /// f, cx, cy, k: equidistant fisheye, a ray at angle θ from the axis lands at f θ (1 + k θ²)
    case simpleRadialFisheye = 8

    /// The name COLMAP uses in cameras.txt.
    public var name: String {
        switch self {
        case .simplePinhole: return "SIMPLE_PINHOLE"
        case .pinhole: return "PINHOLE"
        case .simpleRadial: return "SIMPLE_RADIAL"
        case .radial: return "RADIAL"
        case .simpleRadialFisheye: return "SIMPLE_RADIAL_FISHEYE"
        }
    }

    /// The model with this COLMAP name, if supported.
    public init?(name: String) {
        guard let model = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = model
    }

    /// How many parameters the model has.
    public var parameterCount: Int {
        switch self {
        case .simplePinhole: return 3
        case .pinhole, .simpleRadial, .simpleRadialFisheye: return 4
        case .radial: return 5
        }
    }

    /// Whether the model projects by angle (fisheye) rather than through the image plane.
    public var isFisheye: Bool { self == .simpleRadialFisheye }
}

/// Intrinsics shared by one or more images: model, image size and parameters.
public struct Camera: Equatable, Sendable {
    public var id: CameraID
    public var model: CameraModel
    public var width: Int
    public var height: Int
    /// Parameters in the model's COLMAP order.
    public var params: [Double]

    public init(id: CameraID, model: CameraModel, width: Int, height: Int, params: [Double]) {
        precondition(params.count == model.parameterCount, "\(model.name) takes \(model.parameterCount) params")
        self.id = id
        self.model = model
        self.width = width
        self.height = height
        self.params = params
    }

    /// The focal lengths in pixels (fx, fy).
    public var focalLengths: SIMD2<Double> {
        model == .pinhole ? SIMD2(params[0], params[1]) : SIMD2(params[0], params[0])
    }

    /// The mean focal length in pixels.
    public var meanFocalLength: Double { (focalLengths.x + focalLengths.y) / 2 }
    /// The longer image side in pixels.
    public var longerSide: Int { max(width, height) }

    /// The principal point in pixels.
    public var principalPoint: SIMD2<Double> {
        model == .pinhole ? SIMD2(params[2], params[3]) : SIMD2(params[1], params[2])
    }

    /// Radial distortion coefficients (k1, k2), zero where the model has none.
    public var radialDistortion: SIMD2<Double> {
        switch model {
        case .simplePinhole, .pinhole: return .zero
        case .simpleRadial, .simpleRadialFisheye: return SIMD2(params[3], 0)
        case .radial: return SIMD2(params[3], params[4])
        }
    }

    /// The 3x3 calibration matrix (distortion aside).
    public var calibrationMatrix: Matrix3 {
        let f = focalLengths, c = principalPoint
        return Matrix3(rows: SIMD3(f.x, 0, c.x), SIMD3(0, f.y, c.y), SIMD3(0, 0, 1))
    }

    /// Projects a point in camera coordinates to pixels; nil behind the camera.
    @inline(__always)
    public func project(_ pointInCamera: SIMD3<Double>) -> SIMD2<Double>? {
        guard pointInCamera.z > 1e-12 else { return nil }
        let u = pointInCamera.x / pointInCamera.z, v = pointInCamera.y / pointInCamera.z
        let k = radialDistortion
        let r2 = u * u + v * v
        var radial = 1 + k.x * r2 + k.y * r2 * r2
        if model.isFisheye {
            let r = r2.squareRoot(), theta = atan(r)
            radial = r2 > 1e-16 ? theta / r * (1 + k.x * theta * theta) : 1 - r2 / 3 + k.x * r2
        }
        let f = focalLengths, c = principalPoint
        return SIMD2(f.x * u * radial + c.x, f.y * v * radial + c.y)
    }

    /// Maps a pixel to undistorted normalised coordinates (the inverse of ``project(_:)`` up to depth).
    public func normalized(_ pixel: SIMD2<Double>) -> SIMD2<Double> {
        let f = focalLengths, c = principalPoint
        let distorted = SIMD2((pixel.x - c.x) / f.x, (pixel.y - c.y) / f.y)
        let k = radialDistortion
        if model.isFisheye { return Self.unprojectFisheye(distorted, k: k.x) }
        guard k != .zero else { return distorted }
        // Fixed-point iteration: x = xd / (1 + k1 r^2 + k2 r^4); converges for moderate distortion.
        var x = distorted
        for _ in 0..<20 {
            let r2 = (x * x).sum()
            let next = distorted / (1 + k.x * r2 + k.y * r2 * r2)
            if ((next - x) * (next - x)).sum() < 1e-24 { x = next; break }
            x = next
        }
        return x
    }
}

extension Camera {
    /// Undistorted normalised coordinates of a distorted fisheye point: Newton on
    /// θ (1 + k θ²) = r_d, then tan θ along the same direction (clamped just inside 90°).
    static func unprojectFisheye(_ distorted: SIMD2<Double>, k: Double) -> SIMD2<Double> {
        let rd = (distorted * distorted).sum().squareRoot()
        guard rd > 1e-12 else { return distorted }
        var theta = rd
        for _ in 0..<50 {
            let step = (theta * (1 + k * theta * theta) - rd) / (1 + 3 * k * theta * theta)
            theta -= step
            if abs(step) < 1e-14 * (1 + theta) { break }
        }
        return distorted * (tan(min(theta, 1.5607)) / rd)
    }
}
