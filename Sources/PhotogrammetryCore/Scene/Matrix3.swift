/// A 3x3 matrix of doubles, stored as three rows.
///
/// The toolchain on Linux has no `simd` matrix types, so the scene model carries this small one.
public struct Matrix3: Equatable, Sendable {
    /// The rows, top to bottom.
    public var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    /// Creates a matrix from its rows.
    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        rows = (r0, r1, r2)
    }

    /// Creates a matrix from nine values in row-major order.
    public init(rowMajor v: [Double]) {
        precondition(v.count == 9, "Matrix3 needs 9 values")
        rows = (SIMD3(v[0], v[1], v[2]), SIMD3(v[3], v[4], v[5]), SIMD3(v[6], v[7], v[8]))
    }

    /// The identity matrix.
    public static let identity = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    /// The nine values in row-major order.
    public var rowMajor: [Double] {
        [rows.0.x, rows.0.y, rows.0.z, rows.1.x, rows.1.y, rows.1.z, rows.2.x, rows.2.y, rows.2.z]
    }

    /// The columns, left to right.
    public var columns: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        (SIMD3(rows.0.x, rows.1.x, rows.2.x), SIMD3(rows.0.y, rows.1.y, rows.2.y),
         SIMD3(rows.0.z, rows.1.z, rows.2.z))
    }

    /// The transpose (the inverse, for a rotation).
    public var transposed: Matrix3 {
        let c = columns
        return Matrix3(rows: c.0, c.1, c.2)
    }

    /// The element at `row`, `column`.
    public subscript(row: Int, column: Int) -> Double {
        let r = row == 0 ? rows.0 : (row == 1 ? rows.1 : rows.2)
        return r[column]
    }

    /// The determinant.
    public var determinant: Double { dot(rows.0, cross(rows.1, rows.2)) }

    /// The sum of the diagonal.
    public var trace: Double { rows.0.x + rows.1.y + rows.2.z }

    public static func == (a: Matrix3, b: Matrix3) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    /// Matrix times vector.
    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(dot(m.rows.0, v), dot(m.rows.1, v), dot(m.rows.2, v))
    }

    /// Matrix times matrix.
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let c = b.columns
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { SIMD3(dot(r, c.0), dot(r, c.1), dot(r, c.2)) }
        return Matrix3(rows: row(a.rows.0), row(a.rows.1), row(a.rows.2))
    }

    /// Scalar times matrix.
    public static func * (s: Double, m: Matrix3) -> Matrix3 {
        Matrix3(rows: s * m.rows.0, s * m.rows.1, s * m.rows.2)
    }
}

/// The dot product of two 3-vectors.
@inline(__always)
public func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }

/// The cross product of two 3-vectors.
@inline(__always)
public func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The Euclidean length of a 3-vector.
@inline(__always)
public func length(_ v: SIMD3<Double>) -> Double { dot(v, v).squareRoot() }

/// The vector scaled to unit length (unchanged when zero).
@inline(__always)
public func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> {
    let n = length(v)
    return n > 0 ? v / n : v
}
