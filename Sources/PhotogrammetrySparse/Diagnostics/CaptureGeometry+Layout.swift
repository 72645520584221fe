import Foundation
import PhotogrammetryCore

/// The rules behind ``CaptureGeometry``: object centre, up, orbit or walkthrough.
extension CaptureGeometry {
    /// The mean camera up vector must be at least this long to be trusted (DESIGN.md).
    static let meanUpAgreement = 0.5
    /// The x axes must span a plane: middle eigenvalue of Σ x xᵀ at least this times n (RMS
    /// heading spread of about 8° or more).
    static let rollFreeMinHeadingSpread = 0.02
    /// ... and lie in it: smallest eigenvalue at most this times the middle one (hand-held roll of a
    /// few degrees passes; a mix of portrait and landscape shots does not).
    static let rollFreeMaxRatio = 0.1
    /// A best-fit plane is a "ring plane" when its out-of-plane variance is at most this fraction of
    /// the smaller in-plane one (out-of-plane RMS ≤ 22% of the in-plane RMS).
    static let ringPlaneFlatness = 0.05
    /// ... and when the cameras look along it: mean |sin| of the view-to-plane angle at most this (30°).
    static let ringPlaneViewSine = 0.5
    /// A camera converges when the object centre is within this angle of its viewing direction.
    static let convergenceAngleDeg = 45.0
    /// An orbit needs at least this fraction of converging cameras.
    static let orbitConvergingFraction = 2.0 / 3.0
    /// An orbit needs viewing directions spread by more than this (RMS-like angle about their mean).
    static let orbitMinViewSpreadDeg = 8.0

    /// Estimates the up direction.
    ///
    /// 1. Gravity, when given (up is its opposite).
    /// 2. The cameras' orientations, when the mean of their up vectors is at least
    ///    ``meanUpAgreement`` long (DESIGN.md: people hold phones upright). Two refinements:
    ///    - Not when the centres lie on a clear ring plane that the cameras look along while that
    ///      mean lies within 30° of the plane (more than 60° from its normal). Upright cameras
    ///      looking along a plane have their up vectors near its normal, so a mean up inside it
    ///      means rolled cameras on a partial ring (a landscape phone over half a circle averages
    ///      to 0.64; templeRing's full ring to 0.49, just under 0.5), and the plane is the better
    ///      witness. A cap of upright cameras looking down through the plane of their centres (DTU)
    ///      is not a ring plane.
    ///    - Upright means no roll, not no pitch: a camera looking down at the object tilts its up
    ///      vector towards it by the pitch, which cancels around a full ring but not over a partial
    ///      arc (DTU scan 24, table-top houses: the mean leans 27° off the level the x axes give
    ///      and puts cameras 18° below the object centre). What upright does guarantee is a
    ///      horizontal x axis, so when the x axes visibly span a plane (headings vary: middle
    ///      eigenvalue of Σ x xᵀ ≥ ``rollFreeMinHeadingSpread`` n) and lie in it (smallest ≤
    ///      ``rollFreeMaxRatio`` × middle), up is that plane's normal, signed like the mean up
    ///      vector (DTU: elevations 4.7°…69.8°, RMS roll 1.8°). Otherwise the mean up vector.
    /// 3. The normal of the best-fit plane through the centres, signed to agree with the mean up
    ///    vector when that has a clear component along it (≥ 0.1); otherwise so that the cameras, on
    ///    the whole, look down (the sum of the view directions' components along up is ≤ 0): in
    ///    common captures the object sits on a table or the ground, below the lens, so cameras
    ///    above it get positive elevations. Nil when the centres are collinear (no plane).
    static func estimateUp(gravity: SIMD3<Double>?, cameraUps: [SIMD3<Double>], cameraRights: [SIMD3<Double>],
                           views: [SIMD3<Double>], scatter: CenterScatter) -> (SIMD3<Double>, UpSource)? {
        if let gravity, gravity.x.isFinite, gravity.y.isFinite, gravity.z.isFinite, length(gravity) > 0 {
            return (-normalize(gravity), .gravity)
        }
        let meanUp = cameraUps.reduce(.zero, +) / Double(cameraUps.count)
        let normal = scatter.normal
        let meanAbsViewSine = views.reduce(0) { $0 + abs(dot($1, normal)) } / Double(views.count)
        let ringPlane = scatter.isPlanar(flatness: ringPlaneFlatness) && meanAbsViewSine <= ringPlaneViewSine
        if length(meanUp) >= meanUpAgreement, !(ringPlane && abs(dot(normalize(meanUp), normal)) < 0.5) {
            return (rollFreeUp(cameraRights: cameraRights, meanUp: meanUp) ?? normalize(meanUp), .cameraUp)
        }
        guard scatter.hasPlane else { return nil }
        let along = dot(meanUp, normal)
        let sign: Double
        if abs(along) >= 0.1 {
            sign = along > 0 ? 1 : -1
        } else {
            sign = views.reduce(0) { $0 + dot($1, normal) } > 0 ? -1 : 1
        }
        return (sign * normal, .centerPlane)
    }

    /// The direction perpendicular to all cameras' x axes, signed like `meanUp`; nil when the x
    /// axes do not clearly span one plane (too little heading change, or rolled cameras).
    static func rollFreeUp(cameraRights: [SIMD3<Double>], meanUp: SIMD3<Double>) -> SIMD3<Double>? {
        var m = Matrix3(rows: .zero, .zero, .zero)
        for x in cameraRights { m = m + outer(x, x) }
        let eigen = symmetricEigen(m)
        guard eigen[1].value >= rollFreeMinHeadingSpread * Double(cameraRights.count),
              eigen[0].value <= rollFreeMaxRatio * eigen[1].value else { return nil }
        let normal = eigen[0].vector
        return dot(normal, meanUp) < 0 ? -normal : normal
    }

    /// The point closest, in least squares, to all optical axes.
    ///
    /// Solves sum(I − d dᵀ) x = sum(I − d dᵀ) c (DESIGN.md) through the eigen-decomposition of the
    /// left-hand side, ignoring directions with eigenvalue below 1e-6 n: with parallel axes (a
    /// forward-facing sequence) the system is singular along them and the answer is the
    /// minimum-distance solution nearest the centres' mean, rather than no answer or infinity.
    static func leastSquaresAxisPoint(centers: [SIMD3<Double>], views: [SIMD3<Double>],
                                      mean: SIMD3<Double>) -> SIMD3<Double> {
        var a = Matrix3(rows: .zero, .zero, .zero)
        var rhs = SIMD3<Double>.zero   // sum (I - d d^T)(c - mean)
        for (c, d) in zip(centers, views) {
            a = a + (Matrix3.identity - outer(d, d))
            let r = c - mean
            rhs += r - dot(d, r) * d
        }
        var x = mean
        for (value, vector) in symmetricEigen(a) where value > 1e-6 * Double(centers.count) {
            x += (dot(vector, rhs) / value) * vector
        }
        return x
    }

    /// Orbit when the cameras look in at a common object; walkthrough otherwise.
    ///
    /// The least-squares point alone cannot decide: cameras on a loop looking outward have axes
    /// that all cross the loop's centre (behind them), and cameras walking a loop have tangent axes
    /// whose best point is again the loop's centre (beside them). So a camera counts as converging
    /// only when that point lies in front of it, within ``convergenceAngleDeg`` of its viewing
    /// direction (orbit cameras: a few degrees; outward: ~180°; along the path: ~90°), and an orbit
    /// needs ``orbitConvergingFraction`` of them. Nearly parallel axes (a forward-facing sequence,
    /// forward motion) meet, if at all, at an arbitrary far point that noise decides, so an orbit
    /// also needs the viewing directions to differ by more than ``orbitMinViewSpreadDeg`` (|mean
    /// view| ≤ cos 8°): views within ±8° of each other do not turn around anything.
    static func classifyLayout(centers: [SIMD3<Double>], views: [SIMD3<Double>], objectCenter: SIMD3<Double>,
                               scale: Double) -> Layout {
        let meanView = views.reduce(.zero, +) / Double(views.count)
        guard length(meanView) <= cos(orbitMinViewSpreadDeg * .pi / 180) else { return .walkthrough }
        let cosine = cos(convergenceAngleDeg * .pi / 180)
        let converging = zip(centers, views).filter { c, d in
            let toCenter = objectCenter - c
            let distance = length(toCenter)
            return distance > 1e-9 * scale && dot(d, toCenter) >= cosine * distance
        }.count
        return Double(converging) >= orbitConvergingFraction * Double(centers.count) ? .orbit : .walkthrough
    }

    /// Eigenvalues (ascending) and unit eigenvectors of a symmetric 3x3 matrix, by cyclic Jacobi.
    ///
    /// Only the upper triangle is read. Each sweep zeroes the three off-diagonal elements in turn;
    /// convergence is quadratic, and a handful of sweeps reach machine precision.
    package static func symmetricEigen(_ m: Matrix3) -> [(value: Double, vector: SIMD3<Double>)] {
        var a = [[m[0, 0], m[0, 1], m[0, 2]], [m[0, 1], m[1, 1], m[1, 2]], [m[0, 2], m[1, 2], m[2, 2]]]
        var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        for _ in 0..<50 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let diagonal = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-32 * diagonal || off == 0 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {   // A <- A J
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {   // A <- J^T A
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {   // V <- V J: the columns of V are the eigenvectors
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        return (0..<3).map { k in (a[k][k], normalize(SIMD3(v[0][k], v[1][k], v[2][k]))) }
            .sorted { $0.value < $1.value }
    }
}

/// The spread of the camera centres about their mean: the scatter's eigen-decomposition.
struct CenterScatter {
    /// The centres' mean.
    package let mean: SIMD3<Double>
    /// Eigenvalues of the scatter, ascending, with their unit eigenvectors.
    let eigen: [(value: Double, vector: SIMD3<Double>)]
    /// The RMS distance of the centres from their mean.
    let rmsRadius: Double

    /// Nil when the centres coincide (relative to their distance from the origin) or are not finite.
    package init?(_ centers: [SIMD3<Double>]) {
        guard !centers.isEmpty else { return nil }
        mean = centers.reduce(.zero, +) / Double(centers.count)
        var s = Matrix3(rows: .zero, .zero, .zero)
        for c in centers { s = s + outer(c - mean, c - mean) }
        eigen = CaptureGeometry.symmetricEigen(s)
        rmsRadius = (max(0, eigen.reduce(0) { $0 + $1.value }) / Double(centers.count)).squareRoot()
        let magnitude = centers.map { length($0) }.max() ?? 0
        guard rmsRadius.isFinite, rmsRadius > 0, rmsRadius > 1e-9 * magnitude else { return nil }
    }

    /// The best-fit plane's normal (the smallest eigenvalue's eigenvector), unsigned.
    package var normal: SIMD3<Double> { eigen[0].vector }

    /// False when the centres are (nearly) collinear, so that no plane through them is defined.
    var hasPlane: Bool { eigen[1].value > 1e-9 * eigen[2].value }

    /// True when the out-of-plane variance is at most `flatness` times the smaller in-plane one.
    func isPlanar(flatness: Double) -> Bool { hasPlane && eigen[0].value <= flatness * eigen[1].value }
}

/// The outer product a bᵀ.
private func outer(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Matrix3 {
    Matrix3(rows: a.x * b, a.y * b, a.z * b)
}

private extension Matrix3 {
    static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.rows.0 + b.rows.0, a.rows.1 + b.rows.1, a.rows.2 + b.rows.2)
    }

    static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: a.rows.0 - b.rows.0, a.rows.1 - b.rows.1, a.rows.2 - b.rows.2)
    }
}
