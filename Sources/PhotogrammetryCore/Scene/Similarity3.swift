import Foundation

/// A 7-DoF similarity `y = scale * rotation * x + translation`: the frame change between two
/// reconstructions of one scene, which agree only up to scale, rotation and translation.
public struct Similarity3: Equatable, Sendable {
    public var scale: Double
    public var rotation: Matrix3
    public var translation: SIMD3<Double>

    public init(scale: Double = 1, rotation: Matrix3 = .identity, translation: SIMD3<Double> = .zero) {
        self.scale = scale
        self.rotation = rotation
        self.translation = translation
    }

    /// Maps a point.
    @inline(__always)
    public func apply(_ x: SIMD3<Double>) -> SIMD3<Double> { scale * (rotation * x) + translation }

    /// The similarity that undoes this one.
    public var inverse: Similarity3 {
        let back = rotation.transposed
        return Similarity3(scale: 1 / scale, rotation: back, translation: -(back * translation) / scale)
    }

    /// A camera's pose once its world is mapped by this similarity.
    ///
    /// The camera frame is scaled with the world, which leaves every projection unchanged:
    /// with y = sRx + t, x_cam = R_c x + t_c becomes s x_cam = (R_c Rᵀ) y + (s t_c − R_c Rᵀ t).
    public func transform(_ camFromWorld: Rigid3) -> Rigid3 {
        let rotated = camFromWorld.rotation * rotation.transposed
        return Rigid3(rotation: rotated, translation: scale * camFromWorld.translation - rotated * translation)
    }

    /// The least-squares similarity taking `source[i]` to `target[i]` (Umeyama 1991).
    ///
    /// The rotation comes from Horn's closed form (1987): the unit quaternion maximising
    /// Σ yᵢ·R xᵢ over centred points is the top eigenvector of a symmetric 4x4 matrix, found
    /// here by Jacobi sweeps; it is a proper rotation by construction. The scale is Umeyama's,
    /// Σ yᵢ·R xᵢ / Σ |xᵢ|². Nil with fewer than three points or when the source points coincide.
    public static func leastSquares(from source: [SIMD3<Double>], to target: [SIMD3<Double>]) -> Similarity3? {
        precondition(source.count == target.count, "one target per source point")
        let n = source.count
        guard n >= 3 else { return nil }
        let meanSource = source.reduce(SIMD3<Double>.zero, +) / Double(n)
        let meanTarget = target.reduce(SIMD3<Double>.zero, +) / Double(n)
        // s[a][b] = Σ x_a y_b over centred points.
        var s = [[Double]](repeating: [0, 0, 0], count: 3)
        var sourceVariance = 0.0
        for i in 0..<n {
            let x = source[i] - meanSource, y = target[i] - meanTarget
            sourceVariance += dot(x, x)
            for a in 0..<3 { for b in 0..<3 { s[a][b] += x[a] * y[b] } }
        }
        guard sourceVariance > 1e-300 else { return nil }
        let (xx, xy, xz) = (s[0][0], s[0][1], s[0][2])
        let (yx, yy, yz) = (s[1][0], s[1][1], s[1][2])
        let (zx, zy, zz) = (s[2][0], s[2][1], s[2][2])
        let horn: [[Double]] = [
            [xx + yy + zz, yz - zy, zx - xz, xy - yx],
            [yz - zy, xx - yy - zz, xy + yx, zx + xz],
            [zx - xz, xy + yx, -xx + yy - zz, yz + zy],
            [xy - yx, zx + xz, yz + zy, -xx - yy + zz],
        ]
        let (values, vectors) = symmetricEigen(horn)
        guard let top = values.indices.max(by: { values[$0] < values[$1] }) else { return nil }
        let q = SIMD4(vectors[0][top], vectors[1][top], vectors[2][top], vectors[3][top])
        let rotation = Rotation.matrix(quaternion: q)
        var correlation = 0.0
        for i in 0..<n { correlation += dot(target[i] - meanTarget, rotation * (source[i] - meanSource)) }
        let scale = correlation / sourceVariance
        guard scale.isFinite, scale > 0 else { return nil }
        return Similarity3(scale: scale, rotation: rotation, translation: meanTarget - scale * (rotation * meanSource))
    }

    /// A similarity robust to badly placed cameras, and the indices it fits.
    ///
    /// Least median of squares over point triplets (all of them up to 2000, else 2000 drawn
    /// with a fixed seed), so it needs no threshold and tolerates up to half the points being
    /// wrong; then least squares on the inliers, those within 2.5 robust standard deviations
    /// (σ = 1.4826 (1 + 5 / (n − 3)) √median r², Rousseeuw and Leroy), refitted twice. The
    /// threshold never falls below 1e-9 of the target's extent, so exact data keeps every point.
    /// With exactly three points it is plain least squares.
    public static func robustAlignment(from source: [SIMD3<Double>], to target: [SIMD3<Double>])
        -> (Similarity3, [Int])? {
        let n = source.count
        guard n >= 3 else { return nil }
        let all = Array(0..<n)
        guard n > 3 else { return leastSquares(from: source, to: target).map { ($0, all) } }

        func residuals(_ s: Similarity3) -> [Double] { (0..<n).map { length(s.apply(source[$0]) - target[$0]) } }
        func medianSquared(_ r: [Double]) -> Double { r.map { $0 * $0 }.median() ?? .infinity }

        var triplets: [(Int, Int, Int)] = []
        let combinations = n * (n - 1) * (n - 2) / 6
        let budget = 2000
        if combinations <= budget {
            for i in 0..<n { for j in (i + 1)..<n { for k in (j + 1)..<n { triplets.append((i, j, k)) } } }
        } else {
            var random = SeededGenerator(seed: 0x5EED_CAFE_F00D_1234)
            while triplets.count < budget {
                let i = random.next(below: n), j = random.next(below: n), k = random.next(below: n)
                if i != j && j != k && i != k { triplets.append((i, j, k)) }
            }
        }

        var best: Similarity3?
        var bestScore = Double.infinity
        for (i, j, k) in triplets {
            guard let s = leastSquares(from: [source[i], source[j], source[k]],
                                       to: [target[i], target[j], target[k]]) else { continue }
            let score = medianSquared(residuals(s))
            if score < bestScore { bestScore = score; best = s }
        }
        guard var fit = best else { return leastSquares(from: source, to: target).map { ($0, all) } }

        let centroid = target.reduce(SIMD3<Double>.zero, +) / Double(n)
        let extent = target.map { length($0 - centroid) }.max() ?? 0
        let sigma = 1.4826 * (1 + 5 / Double(n - 3)) * bestScore.squareRoot()
        let threshold = max(2.5 * sigma, 1e-9 * extent)
        var inliers = all
        for _ in 0..<2 {
            let r = residuals(fit)
            let candidates = all.filter { r[$0] <= threshold }
            guard candidates.count >= 3,
                  let refit = leastSquares(from: candidates.map { source[$0] }, to: candidates.map { target[$0] })
            else { break }
            fit = refit
            inliers = candidates
        }
        return (fit, inliers)
    }
}

extension Similarity3 {
    /// Eigenvalues and eigenvectors (as columns) of a small symmetric matrix, by cyclic Jacobi.
    package static func symmetricEigen(_ matrix: [[Double]]) -> (values: [Double], vectors: [[Double]]) {
        var a = matrix
        let n = a.count
        var v = (0..<n).map { i in (0..<n).map { $0 == i ? 1.0 : 0.0 } }
        for _ in 0..<64 {
            var off = 0.0, scale = 0.0
            for p in 0..<n {
                scale += a[p][p] * a[p][p]
                for q in (p + 1)..<n { off += a[p][q] * a[p][q] }
            }
            if off <= 1e-30 * max(scale, 1e-300) { break }
            for p in 0..<n {
                for q in (p + 1)..<n where a[p][q] != 0 {
                    // Zero a[p][q] with the rotation of angle θ, tan 2θ = 2 a_pq / (a_qq − a_pp).
                    let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot(), s = t * c
                    for k in 0..<n {
                        let akp = a[k][p], akq = a[k][q]
                        a[k][p] = c * akp - s * akq
                        a[k][q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p][k], aqk = a[q][k]
                        a[p][k] = c * apk - s * aqk
                        a[q][k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k][p], vkq = v[k][q]
                        v[k][p] = c * vkp - s * vkq
                        v[k][q] = s * vkp + c * vkq
                    }
                }
            }
        }
        return ((0..<n).map { a[$0][$0] }, v)
    }
}
