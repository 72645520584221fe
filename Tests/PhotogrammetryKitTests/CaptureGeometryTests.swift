import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Seeded camera rigs with small pose noise: the camera centre moves by `centerNoise` (world units,
/// per axis, Gaussian) and the camera frame turns by `rotationNoiseDeg` (per axis, Gaussian).
private struct Rig {
    var rng: SplitMix64
    var centerNoise = 0.02
    var rotationNoiseDeg = 0.3

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    /// A camFromWorld pose at `center` looking at `target`, OpenCV axes, upright about `worldUp`
    /// and then rolled by `rollDeg` about the optical axis; with noise.
    mutating func camera(at center: SIMD3<Double>, lookingAt target: SIMD3<Double>, rollDeg: Double = 0,
                         worldUp: SIMD3<Double> = SIMD3(0, 0, 1)) -> Rigid3 {
        let c = center + centerNoise * rng.gaussian3()
        let z = normalize(target - c)
        let down = normalize(-(worldUp - dot(worldUp, z) * z))
        let x0 = cross(down, z), roll = rollDeg * .pi / 180
        let x = cos(roll) * x0 + sin(roll) * down
        let exact = Matrix3(rows: x, cross(z, x), z)
        let rotation = Rotation.matrix(angleAxis: rotationNoiseDeg * .pi / 180 * rng.gaussian3()) * exact
        return Rigid3(rotation: rotation, translation: -(rotation * c))
    }

    /// `count` cameras on a horizontal circle (radius, height) from `startDeg` in steps of
    /// `stepDeg` (counter-clockwise about +z), looking at the origin.
    mutating func ring(count: Int, radius: Double = 5, height: Double, stepDeg: Double, startDeg: Double = 0,
                       rollDeg: Double = 0) -> [Rigid3] {
        (0..<count).map { k in
            let a = (startDeg + stepDeg * Double(k)) * .pi / 180
            return camera(at: SIMD3(radius * cos(a), radius * sin(a), height), lookingAt: .zero, rollDeg: rollDeg)
        }
    }
}

private func degrees(between a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    acos(min(1, max(-1, dot(normalize(a), normalize(b))))) * 180 / .pi
}

/// Angular distance on the circle, in degrees.
private func circularDistance(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

final class CaptureGeometryTests: XCTestCase {
    func testFullRingAtOneHeight() throws {
        var rig = Rig(seed: 1)
        let poses = rig.ring(count: 24, height: 1.5, stepDeg: 15)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
        XCTAssertEqual(g.layout, .orbit)
        XCTAssertEqual(g.upSource, .cameraUp)
        XCTAssertLessThan(degrees(between: g.up, SIMD3(0, 0, 1)), 1)
        XCTAssertLessThan(length(g.objectCenter), 0.1)
        XCTAssertEqual(g.azimuthCoverageDeg, 345, accuracy: 1.5)
        XCTAssertLessThan(g.elevationSpreadDeg, 1)
        let expectedElevation = atan(1.5 / 5.0) * 180 / .pi
        for elevation in g.elevationDeg { XCTAssertEqual(elevation, expectedElevation, accuracy: 1) }
        // Azimuth 0 at the first camera, growing counter-clockwise seen from above.
        XCTAssertEqual(g.azimuthDeg[0], 0)
        for (k, azimuth) in g.azimuthDeg.enumerated() {
            XCTAssertLessThan(circularDistance(azimuth, 15 * Double(k)), 1, "camera \(k)")
            XCTAssertTrue(azimuth >= 0 && azimuth < 360)
        }
        XCTAssertEqual(g.centerTop.count, 24)
        XCTAssertEqual(g.centerTop[6].y, 5, accuracy: 0.1)   // 90°: on the +y side of the top view
        XCTAssertEqual(g.directionTop[6].y, -5 / (1.5 * 1.5 + 25).squareRoot(), accuracy: 0.02)
    }

    func testHalfRingCoversHalfATurnAndNamesTheMissingArc() throws {
        var rig = Rig(seed: 2)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: rig.ring(count: 13, height: 1, stepDeg: 15)))
        XCTAssertEqual(g.layout, .orbit)
        XCTAssertEqual(g.azimuthCoverageDeg, 180, accuracy: 1.5)
        XCTAssertEqual(g.largestGapDeg.start, 180, accuracy: 1.5)
        XCTAssertEqual(g.largestGapDeg.end, 0)
    }

    func testTwoRingsSpreadIsTheirElevationDifference() throws {
        var rig = Rig(seed: 3)
        let poses = rig.ring(count: 12, height: 0.5, stepDeg: 30, startDeg: 10)
            + rig.ring(count: 12, height: 3, stepDeg: 30, startDeg: 25)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
        let low = atan(0.5 / 5.0) * 180 / .pi, high = atan(3 / 5.0) * 180 / .pi
        XCTAssertEqual(g.layout, .orbit)
        XCTAssertEqual(g.elevationSpreadDeg, high - low, accuracy: 1.5)
        XCTAssertEqual(g.azimuthCoverageDeg, 345, accuracy: 1.5)   // 24 azimuths 15° apart
        let sectors = g.coverageSectors()
        XCTAssertEqual(sectors.count, 2)
        XCTAssertEqual(sectors.map { $0.count }, [16, 16])
        XCTAssertEqual(sectors[0].reduce(0, +), 12)   // 5.7°: lower ring
        XCTAssertEqual(sectors[1].reduce(0, +), 12)   // 31°: upper ring
        XCTAssertEqual(g.coverageSectors(upperRingFromDeg: 40)[0].reduce(0, +), 24)
    }

    func testRolledRingTakesUpFromTheCentrePlane() throws {
        // Cameras rolled 90° about their axes: their up vectors are tangent to the ring, mean ~0.
        // The plane's normal has no sign of its own; the cameras looking down give it, in any world.
        var rig = Rig(seed: 4)
        let poses = rig.ring(count: 24, height: 1, stepDeg: 15, rollDeg: 90)
        let worlds = [Matrix3.identity, Rotation.matrix(angleAxis: SIMD3(.pi, 0, 0)),
                      Rotation.matrix(angleAxis: SIMD3(0, 2, 1))]
        for r in worlds {
            let moved = poses.map { Rigid3(rotation: $0.rotation * r.transposed, translation: $0.translation) }
            let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: moved))
            XCTAssertEqual(g.upSource, .centerPlane)
            XCTAssertLessThan(degrees(between: g.up, r * SIMD3(0, 0, 1)), 1)
            XCTAssertGreaterThan(dot(g.up, r * SIMD3(0, 0, 1)), 0)
            XCTAssertEqual(g.layout, .orbit)
            XCTAssertLessThanOrEqual(g.elevationSpreadDeg, 1)
            XCTAssertEqual(g.elevationDeg[0], atan(1 / 5.0) * 180 / .pi, accuracy: 1)
            XCTAssertEqual(g.azimuthCoverageDeg, 345, accuracy: 1.5)
        }
    }

    func testRolledHalfRingPrefersTheRingPlaneOverAnInPlaneMeanUp() throws {
        // Tangent up vectors over half a circle average to length 2/π ≈ 0.64 ≥ 0.5, inside the plane.
        var rig = Rig(seed: 5)
        let poses = rig.ring(count: 13, height: 1, stepDeg: 15, rollDeg: 90)
        let meanUp = poses.map { -$0.rotation.rows.1 }.reduce(.zero, +) / 13
        XCTAssertGreaterThan(length(meanUp), 0.5)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
        XCTAssertEqual(g.upSource, .centerPlane)
        XCTAssertLessThan(degrees(between: g.up, SIMD3(0, 0, 1)), 1)
        XCTAssertEqual(g.azimuthCoverageDeg, 180, accuracy: 1.5)
    }

    func testUprightCapOfCamerasKeepsTheMeanUpVector() throws {
        // DTU-like: cameras on a spherical cap above the object, their centres' best-fit plane tilted.
        var rig = Rig(seed: 6)
        var poses = [Rigid3]()
        for elevation in stride(from: 20.0, through: 65, by: 15) {
            for azimuth in stride(from: 0.0, through: 120, by: 20) {
                let e = elevation * .pi / 180, a = azimuth * .pi / 180
                poses.append(rig.camera(at: 4 * SIMD3(cos(e) * cos(a), cos(e) * sin(a), sin(e)), lookingAt: .zero))
            }
        }
        // Pitch tilts the mean up vector towards the object; the level x axes do not lie.
        let meanUp = poses.map { -$0.rotation.rows.1 }.reduce(.zero, +) / Double(poses.count)
        XCTAssertGreaterThan(length(meanUp), 0.5)
        XCTAssertGreaterThan(degrees(between: meanUp, SIMD3(0, 0, 1)), 20)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
        XCTAssertEqual(g.upSource, .cameraUp)
        XCTAssertLessThan(degrees(between: g.up, SIMD3(0, 0, 1)), 1)
        XCTAssertEqual(g.elevationSpreadDeg, 45, accuracy: 1.5)
        XCTAssertEqual(g.azimuthCoverageDeg, 120, accuracy: 1.5)
        XCTAssertEqual(g.layout, .orbit)
    }

    func testMeasuresDoNotDependOnTheWorldFrame() throws {
        var rig = Rig(seed: 7)
        let poses = rig.ring(count: 10, height: 0.5, stepDeg: 20)
            + rig.ring(count: 6, height: 2.5, stepDeg: 40, startDeg: 5)
        let r = Rotation.matrix(angleAxis: SIMD3(0.4, -1.1, 0.7))
        let s = 0.037, t = SIMD3<Double>(12, -40, 3)
        let moved = poses.map { pose -> Rigid3 in
            let rotation = pose.rotation * r.transposed
            return Rigid3(rotation: rotation, translation: -(rotation * (s * (r * pose.centerInWorld) + t)))
        }
        let a = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
        let b = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: moved))
        XCTAssertEqual(a.layout, b.layout)
        XCTAssertEqual(a.upSource, b.upSource)
        XCTAssertLessThan(degrees(between: r * a.up, b.up), 1e-6)
        XCTAssertLessThan(length(s * (r * a.objectCenter) + t - b.objectCenter), 1e-9)
        XCTAssertEqual(a.azimuthCoverageDeg, b.azimuthCoverageDeg, accuracy: 1e-6)
        XCTAssertEqual(a.elevationSpreadDeg, b.elevationSpreadDeg, accuracy: 1e-6)
        for k in poses.indices {
            XCTAssertLessThan(circularDistance(a.azimuthDeg[k], b.azimuthDeg[k]), 1e-6)
            XCTAssertEqual(a.elevationDeg[k], b.elevationDeg[k], accuracy: 1e-6)
        }
        XCTAssertEqual(a.azimuthCoverageDeg, 205, accuracy: 1.5)   // 0…180° below, up to 205° above
    }

    func testWalkthroughCamerasInsideARoomLookingOutOrAlongThePath() throws {
        var rig = Rig(seed: 8)
        var outward = [Rigid3](), along = [Rigid3]()
        for k in 0..<30 {
            let a = 2 * Double.pi * Double(k) / 30
            let c = SIMD3(3 * cos(a), 2 * sin(a), 1.6)
            let jitter = rig.rng.uniform(-0.35, 0.35)
            let radial = SIMD3(cos(a + jitter), sin(a + jitter), -0.1)
            let tangent = SIMD3(-sin(a + jitter), cos(a + jitter), 0.05)
            outward.append(rig.camera(at: c, lookingAt: c + radial))
            along.append(rig.camera(at: c, lookingAt: c + tangent))
        }
        for poses in [outward, along] {
            let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
            XCTAssertEqual(g.layout, .walkthrough)
            XCTAssertEqual(g.upSource, .cameraUp)
        }
    }

    func testForwardFacingAndForwardMotionAreNotOrbits() throws {
        var rig = Rig(seed: 9)
        let sideways = (0..<12).map { k in
            rig.camera(at: SIMD3(0.3 * Double(k), 0, 1.5), lookingAt: SIMD3(0.3 * Double(k), 10, 1.5))
        }
        let forward = (0..<12).map { k in
            rig.camera(at: SIMD3(0, 0.5 * Double(k), 1.5), lookingAt: SIMD3(0, 0.5 * Double(k) + 10, 1.4))
        }
        for poses in [sideways, forward] {
            let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses))
            XCTAssertEqual(g.layout, .walkthrough)
        }
        // Parallel axes (to 1e-5°): the least-squares system is singular; the answer is the
        // solution nearest the centres' mean, not a point thrown far away by round-off and jitter.
        rig.centerNoise = 0
        rig.rotationNoiseDeg = 1e-5
        let parallel = (0..<12).map { k in
            let c = SIMD3(0.37 * Double(k), 0, 1.5 + 0.1 * Double(k % 3))
            return rig.camera(at: c, lookingAt: c + SIMD3(3.1, 10, -1.7))
        }
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: parallel))
        let mean = parallel.map(\.centerInWorld).reduce(.zero, +) / 12
        XCTAssertLessThan(length(g.objectCenter - mean), 1e-6)
        XCTAssertEqual(g.layout, .walkthrough)
    }

    func testFewerThanThreeCamerasOrNoBaselineGiveNil() {
        var rig = Rig(seed: 10)
        let poses = rig.ring(count: 3, height: 1, stepDeg: 120)
        XCTAssertNil(CaptureGeometry.measure(camFromWorld: []))
        XCTAssertNil(CaptureGeometry.measure(camFromWorld: Array(poses.prefix(1))))
        XCTAssertNil(CaptureGeometry.measure(camFromWorld: Array(poses.prefix(2))))
        XCTAssertNotNil(CaptureGeometry.measure(camFromWorld: poses))
        rig.centerNoise = 0   // a panorama: one centre, turning in place
        let panorama = (0..<8).map { k in
            rig.camera(at: SIMD3(1, 2, 3), lookingAt: SIMD3(1 + cos(Double(k)), 2 + sin(Double(k)), 3))
        }
        XCTAssertNil(CaptureGeometry.measure(camFromWorld: panorama))
    }

    func testGravityOverridesCameraUpVectors() throws {
        var rig = Rig(seed: 11)
        let poses = rig.ring(count: 12, height: 1, stepDeg: 30, rollDeg: 90)
        let g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses, gravity: SIMD3(0, 0, -9.81)))
        XCTAssertEqual(g.upSource, .gravity)
        XCTAssertEqual(g.up, SIMD3(0, 0, 1))
        // A (wrong) sideways gravity is obeyed: the cameras now sit at ±90° "elevation" about x.
        let sideways = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses, gravity: SIMD3(-1, 0, 0)))
        XCTAssertEqual(sideways.up, SIMD3(1, 0, 0))
        XCTAssertGreaterThan(sideways.elevationSpreadDeg, 150)
        let zero = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: poses, gravity: .zero))
        XCTAssertEqual(zero.upSource, .centerPlane)
    }

    func testCoverageSectorBoundaries() throws {
        var rig = Rig(seed: 12)
        var g = try XCTUnwrap(CaptureGeometry.measure(camFromWorld: rig.ring(count: 6, height: 1, stepDeg: 60)))
        g.azimuthDeg = [0, 22.4999, 22.5, 180, 359.999, 100]
        g.elevationDeg = [-10, 19.999, 20, 45, 60, 20]
        var lower = [Int](repeating: 0, count: 16), upper = lower
        lower[0] = 2                                        // 0° and 22.4999°, below 20°
        for sector in [1, 8, 15, 4] { upper[sector] = 1 }   // 22.5°, 180°, 359.999°, 100°
        XCTAssertEqual(g.coverageSectors(), [lower, upper])
        XCTAssertEqual(g.coverageSectors(upperRingFromDeg: 90).map { $0.reduce(0, +) }, [6, 0])
    }

    func testLargestAzimuthGap() {
        XCTAssertEqual(CaptureGeometry.largestAzimuthGap([42]).width, 360)   // one camera: coverage 0
        let wrap = CaptureGeometry.largestAzimuthGap([350, 10, 20])
        XCTAssertEqual(wrap.start, 20); XCTAssertEqual(wrap.end, 350); XCTAssertEqual(wrap.width, 330)
        let inside = CaptureGeometry.largestAzimuthGap([0, 40, 130, 300])
        XCTAssertEqual(inside.start, 130); XCTAssertEqual(inside.end, 300); XCTAssertEqual(inside.width, 170)
        XCTAssertEqual(CaptureGeometry.degrees0to360(-1e-17), 0)
        XCTAssertEqual(CaptureGeometry.degrees0to360(-.pi / 2), 270, accuracy: 1e-12)
    }

    func testSymmetricEigenDecomposesRandomMatrices() {
        var rng = SplitMix64(seed: 13)
        for _ in 0..<20 {
            let b = Matrix3(rows: rng.gaussian3(), rng.gaussian3(), rng.gaussian3())
            let m = b * b.transposed
            let eigen = CaptureGeometry.symmetricEigen(m)
            XCTAssertLessThanOrEqual(eigen[0].value, eigen[1].value)
            XCTAssertLessThanOrEqual(eigen[1].value, eigen[2].value)
            XCTAssertEqual(eigen.reduce(0) { $0 + $1.value }, m.trace, accuracy: 1e-9)
            for (value, vector) in eigen {
                XCTAssertLessThan(length(m * vector - value * vector), 1e-9 * max(1, m.trace))
                XCTAssertEqual(length(vector), 1, accuracy: 1e-12)
            }
            XCTAssertEqual(abs(dot(eigen[0].vector, eigen[1].vector)), 0, accuracy: 1e-9)
        }
    }
}
