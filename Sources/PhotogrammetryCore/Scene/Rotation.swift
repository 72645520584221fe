import Foundation

/// Conversions between rotation matrices, unit quaternions and angle-axis vectors.
public enum Rotation {
    /// The rotation matrix of an angle-axis vector (direction = axis, length = angle in radians).
    public static func matrix(angleAxis w: SIMD3<Double>) -> Matrix3 {
        let theta = length(w)
        if theta < 1e-12 {
            // First order: R = I + [w]x, accurate for tiny angles.
            return Matrix3(rows: SIMD3(1, -w.z, w.y), SIMD3(w.z, 1, -w.x), SIMD3(-w.y, w.x, 1))
        }
        let k = w / theta
        let c = cos(theta), s = sin(theta), v = 1 - c
        return Matrix3(
            rows: SIMD3(c + k.x * k.x * v, k.x * k.y * v - k.z * s, k.x * k.z * v + k.y * s),
            SIMD3(k.y * k.x * v + k.z * s, c + k.y * k.y * v, k.y * k.z * v - k.x * s),
            SIMD3(k.z * k.x * v - k.y * s, k.z * k.y * v + k.x * s, c + k.z * k.z * v))
    }

    /// The angle-axis vector of a rotation matrix.
    public static func angleAxis(_ r: Matrix3) -> SIMD3<Double> {
        let q = quaternion(r)  // (w, x, y, z), w >= 0
        let sinHalf = (q.y * q.y + q.z * q.z + q.w * q.w).squareRoot()
        if sinHalf < 1e-12 { return SIMD3(2 * q.y, 2 * q.z, 2 * q.w) }
        let angle = 2 * atan2(sinHalf, q.x)
        return SIMD3(q.y, q.z, q.w) * (angle / sinHalf)
    }

    /// The unit quaternion (w, x, y, z) of a rotation matrix, with w >= 0.
    public static func quaternion(_ r: Matrix3) -> SIMD4<Double> {
        // Shepperd's method: pick the largest diagonal term for numerical stability.
        let t = r.trace
        var q: SIMD4<Double>
        if t > r[0, 0] && t > r[1, 1] && t > r[2, 2] {
            let s = (1 + t).squareRoot() * 2
            q = SIMD4(0.25 * s, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s)
        } else if r[0, 0] > r[1, 1] && r[0, 0] > r[2, 2] {
            let s = (1 + r[0, 0] - r[1, 1] - r[2, 2]).squareRoot() * 2
            q = SIMD4((r[2, 1] - r[1, 2]) / s, 0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s)
        } else if r[1, 1] > r[2, 2] {
            let s = (1 + r[1, 1] - r[0, 0] - r[2, 2]).squareRoot() * 2
            q = SIMD4((r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s)
        } else {
            let s = (1 + r[2, 2] - r[0, 0] - r[1, 1]).squareRoot() * 2
            q = SIMD4((r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s)
        }
        if q.x < 0 { q = -q }
        return q / (q * q).sum().squareRoot()
    }

    /// The rotation matrix of a quaternion (w, x, y, z); normalised first.
    public static func matrix(quaternion q0: SIMD4<Double>) -> Matrix3 {
        let q = q0 / (q0 * q0).sum().squareRoot()
        let (w, x, y, z) = (q.x, q.y, q.z, q.w)
        return Matrix3(
            rows: SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// The angle in degrees of the rotation taking `a` to `b` (the geodesic distance).
    public static func angleDegrees(between a: Matrix3, and b: Matrix3) -> Double {
        let cosine = ((a.transposed * b).trace - 1) / 2
        return acos(max(-1, min(1, cosine))) * 180 / .pi
    }
}
