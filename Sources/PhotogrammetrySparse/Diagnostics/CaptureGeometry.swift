import Foundation
import PhotogrammetryCore

/// Where a capture's cameras stand around the object, measured from their registered poses.
///
/// The measures follow DESIGN.md ("Capture diagnostics"): the object centre is the point closest,
/// in least squares, to all optical axes; "up" comes from gravity, else from the cameras' up
/// vectors, else from the plane of the camera centres (with two refinements, see `estimateUp`);
/// each camera's azimuth and elevation are those of (centre − object centre) about up.
/// ``azimuthCoverageDeg`` and ``elevationSpreadDeg`` map to the two capture fixes "walk the rest
/// of the circle" and "add a higher or lower ring".
///
/// Conventions, chosen so that the numbers are deterministic and do not depend on the world frame
/// (any rotation, translation and scale of the scene gives the same angles):
/// - cameras use OpenCV axes (x right, y down, z forward), so a camera's up is `-rotation.rows.1`;
/// - azimuth 0 is the direction of the first camera (the first whose offset is not vertical), and
///   azimuths grow counter-clockwise seen from above (right-handed about up), in [0, 360);
/// - elevation is positive above the object centre, in [-90, 90].
///
/// ```
/// if let geometry = CaptureGeometry.measure(camFromWorld: poses), geometry.layout == .orbit {
///     print(geometry.azimuthCoverageDeg, geometry.largestGapDeg)
///     // templeRing, first 24 views: 252.9 (start: 123.1, end: 230.2): walk from 123° to 230°
/// }
/// ```
/// With cameras inside looking out (``Layout/walkthrough``) the angles are still computed but mean
/// nothing: the report shows them as null. See `CaptureGeometry+Layout.swift` for the rules.
public struct CaptureGeometry: Sendable {
    /// How the cameras are arranged. ("turntable" is decided elsewhere, from the matches.)
    public enum Layout: String, Sendable {
        /// Outside looking in: the optical axes converge on an object in front of the cameras.
        case orbit
        /// Inside looking out, along a path, or parallel (rooms, corridors, forward-facing
        /// sequences): there is no object to turn around and the angular measures are meaningless.
        case walkthrough
    }

    /// Where ``up`` came from; the raw values are the report's wording.
    public enum UpSource: String, Sendable {
        /// The gravity prior passed to ``measure(camFromWorld:gravity:)``.
        case gravity = "gravity"
        /// The cameras' orientations (phones held upright): the mean of their up vectors, or the
        /// normal of their x axes when those visibly span a plane.
        case cameraUp = "camera up vectors"
        /// The normal of the best-fit plane through the camera centres (rolled cameras).
        case centerPlane = "camera-centre plane"
    }

    /// Orbit or walkthrough.
    public var layout: Layout
    /// The least-squares point closest to all optical axes (meaningless for a walkthrough).
    public var objectCenter: SIMD3<Double>
    /// The unit up direction in world coordinates.
    public var up: SIMD3<Double>
    /// Where ``up`` came from.
    public var upSource: UpSource
    /// Per input camera, in [0, 360): counter-clockwise about up, 0 at the first camera.
    public var azimuthDeg: [Double]
    /// Per input camera, in [-90, 90]: positive above the object centre.
    public var elevationDeg: [Double]
    /// 360 minus the largest gap between angularly consecutive azimuths.
    public var azimuthCoverageDeg: Double
    /// The highest minus the lowest elevation.
    public var elevationSpreadDeg: Double
    /// The missing arc: it runs counter-clockwise from `start` to `end` (both azimuths in
    /// [0, 360); `end < start` when it crosses azimuth 0), for advice like "walk from 40° to 130°".
    public var largestGapDeg: (start: Double, end: Double)
    /// Camera centres in the horizontal plane of the frame with z = up, origin at the object centre
    /// and x axis at azimuth 0 (for a top view).
    public var centerTop: [SIMD2<Double>]
    /// Viewing directions projected to that plane (not normalised: short when looking steeply).
    public var directionTop: [SIMD2<Double>]

    /// Camera counts per cell of the coverage dial.
    ///
    /// - Parameter upperRingFromDeg: Cameras at or above this elevation fall in the upper ring.
    /// - Returns: Two rings, `[lower, upper]`, of 16 sector counts each; sector `k` covers azimuths
    ///   [22.5k, 22.5(k + 1)).
    public func coverageSectors(upperRingFromDeg: Double = 20) -> [[Int]] {
        var rings = [[Int]](repeating: [Int](repeating: 0, count: Self.sectorCount), count: 2)
        for (azimuth, elevation) in zip(azimuthDeg, elevationDeg) {
            let sector = min(Self.sectorCount - 1, max(0, Int(azimuth / Self.sectorWidthDeg)))
            rings[elevation >= upperRingFromDeg ? 1 : 0][sector] += 1
        }
        return rings
    }

    /// Measures a capture's camera layout.
    ///
    /// Returns nil when there is nothing sound to measure: fewer than 3 cameras, a non-finite pose,
    /// camera centres that coincide (no baseline), no way to tell up (camera up vectors disagree and
    /// the centres are collinear), or every camera straight above or below the object centre.
    /// Cameras whose axes are parallel (a forward-facing sequence) are measured, as a walkthrough.
    /// - Parameters:
    ///   - camFromWorld: The registered cameras' poses; the per-camera outputs keep this order.
    ///   - gravity: The direction gravity pulls, in world coordinates (pointing down, like Core
    ///     Motion's `gravity`); up is its opposite. A zero or non-finite vector counts as absent.
    public static func measure(camFromWorld: [Rigid3], gravity: SIMD3<Double>? = nil) -> CaptureGeometry? {
        guard camFromWorld.count >= 3 else { return nil }
        let centers = camFromWorld.map(\.centerInWorld)
        let views = camFromWorld.map { normalize($0.viewingDirectionInWorld) }
        let cameraUps = camFromWorld.map { -normalize($0.rotation.rows.1) }
        let cameraRights = camFromWorld.map { normalize($0.rotation.rows.0) }
        guard (centers + views + cameraUps + cameraRights).allSatisfy(isFinite) else { return nil }

        guard let scatter = CenterScatter(centers),
              let (up, upSource) = estimateUp(gravity: gravity, cameraUps: cameraUps, cameraRights: cameraRights,
                                              views: views, scatter: scatter)
        else { return nil }
        let objectCenter = leastSquaresAxisPoint(centers: centers, views: views, mean: scatter.mean)
        let layout = classifyLayout(centers: centers, views: views, objectCenter: objectCenter,
                                    scale: scatter.rmsRadius)

        // Horizontal frame (e1, e2, up), right-handed; e1 towards the first non-vertical camera.
        let offsets = centers.map { $0 - objectCenter }
        let horizontal = offsets.map { $0 - dot($0, up) * up }
        guard let reference = zip(offsets, horizontal).first(where: { offset, h in
            length(h) > 1e-6 * length(offset)
        })?.1 else { return nil }
        let e1 = normalize(reference), e2 = cross(up, e1)

        var geometry = CaptureGeometry(
            layout: layout, objectCenter: objectCenter, up: up, upSource: upSource,
            azimuthDeg: [], elevationDeg: [], azimuthCoverageDeg: 0, elevationSpreadDeg: 0,
            largestGapDeg: (0, 0), centerTop: [], directionTop: [])
        for (offset, view) in zip(offsets, views) {
            let top = SIMD2(dot(offset, e1), dot(offset, e2))
            geometry.centerTop.append(top)
            geometry.directionTop.append(SIMD2(dot(view, e1), dot(view, e2)))
            geometry.azimuthDeg.append(Self.degrees0to360(atan2(top.y, top.x)))
            let distance = length(offset)
            let sine = distance > 0 ? min(1, max(-1, dot(offset, up) / distance)) : 0
            geometry.elevationDeg.append(asin(sine) * 180 / .pi)
        }
        let gap = Self.largestAzimuthGap(geometry.azimuthDeg)
        geometry.largestGapDeg = (gap.start, gap.end)
        geometry.azimuthCoverageDeg = 360 - gap.width
        geometry.elevationSpreadDeg = (geometry.elevationDeg.max() ?? 0) - (geometry.elevationDeg.min() ?? 0)
        return geometry
    }

    /// The largest gap between angularly consecutive azimuths (degrees), going counter-clockwise
    /// from `start` to `end`; with no azimuth or one, the whole turn (width 360).
    static func largestAzimuthGap(_ azimuths: [Double]) -> (start: Double, end: Double, width: Double) {
        let sorted = azimuths.sorted()
        guard let first = sorted.first, let last = sorted.last, sorted.count > 1 else {
            let a = azimuths.first ?? 0
            return (a, a, 360)
        }
        var best = (start: last, end: first, width: first + 360 - last)
        for (a, b) in zip(sorted, sorted.dropFirst()) where b - a > best.width {
            best = (a, b, b - a)
        }
        return best
    }

    /// An angle in radians as degrees in [0, 360).
    static func degrees0to360(_ radians: Double) -> Double {
        var degrees = radians * 180 / .pi
        if degrees < 0 { degrees += 360 }
        return degrees >= 360 ? 0 : degrees   // -1e-17 + 360 rounds to 360
    }

    /// The dial's sectors per ring.
    package static let sectorCount = 16
    /// The azimuth width of one dial sector, in degrees.
    static let sectorWidthDeg = 22.5
}

/// True when all three components are finite.
private func isFinite(_ v: SIMD3<Double>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }
