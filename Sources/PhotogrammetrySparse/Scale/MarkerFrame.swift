import Foundation
import PhotogrammetryCore

/// The frame of a board of printed markers (`--marker-frame`), fitted to the markers' corners
/// located in a model: the board's plane by least squares over every corner, +Y its normal on the
/// side most registered cameras are on, the origin the markers' centres' centroid on the plane,
/// +X along the lowest id's edge from its corner 0 to corner 1 (in the plane), +Z = X × Y.
public struct MarkerFrame: Codable, Sendable, Equatable {
    /// Takes the model's world into the board's frame: rigid, scale 1.
    public var transform: Similarity3
    /// Markers the plane was fitted to.
    public var markers: Int
    /// The corners' RMS distance from the fitted plane, in model units.
    public var planeRMS: Double
    /// The marker whose edge gives +X.
    public var axisMarkerID: Int

    /// Fewer located markers than this give no frame: one marker's small square tilts the plane
    /// with each corner's error.
    public static let minMarkers = 2
    /// Corners further than this fraction of the board's extent (RMS) from one plane: the markers
    /// are not on one flat board, and no frame is made.
    public static let maxPlaneRMSFraction = 0.02

    /// Why no frame could be fitted.
    public struct Unfit: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The board's frame from `markers` (in the model's units) and the registered cameras'
    /// centres (which side of the board is up).
    /// - Throws: ``Unfit`` with fewer than ``minMarkers`` markers, corners off one plane, or an
    ///   axis marker whose edge is along the normal.
    public static func fit(_ markers: [MarkerScale.MeasuredMarker], cameraCentres: [SIMD3<Double>]) throws -> MarkerFrame {
        guard markers.count >= minMarkers else {
            throw Unfit(description: "\(markers.count) marker\(markers.count == 1 ? "" : "s") located, the frame needs \(minMarkers)")
        }
        let corners = markers.flatMap(\.corners)
        let centroid = corners.reduce(.zero, +) / Double(corners.count)
        var scatter = [[Double]](repeating: [0, 0, 0], count: 3)
        for corner in corners {
            let d = corner - centroid
            for a in 0..<3 { for b in 0..<3 { scatter[a][b] += d[a] * d[b] } }
        }
        // The plane's normal: the direction of least scatter.
        let (values, vectors) = Similarity3.symmetricEigen(scatter)
        let least = values.indices.min { values[$0] < values[$1] }!
        var up = normalize(SIMD3(vectors[0][least], vectors[1][least], vectors[2][least]))
        let planeRMS = (max(values[least], 0) / Double(corners.count)).squareRoot()
        let extent = corners.map { length($0 - centroid) }.max() ?? 0
        guard planeRMS <= maxPlaneRMSFraction * extent else {
            throw Unfit(description: String(format: "the markers' corners are %.1f %% of the board's extent off one plane (at most %.0f %%)",
                                            100 * planeRMS / extent, 100 * maxPlaneRMSFraction))
        }
        let above = cameraCentres.filter { dot($0 - centroid, up) > 0 }.count
        if 2 * above < cameraCentres.count { up = -up }

        let centres = markers.map { $0.centre - dot($0.centre - centroid, up) * up }
        let origin = centres.reduce(.zero, +) / Double(centres.count)
        let axisMarker = markers.min { $0.id < $1.id }!
        let edge = axisMarker.corners[1] - axisMarker.corners[0]
        let inPlane = edge - dot(edge, up) * up
        guard length(inPlane) > 1e-6 * length(edge), length(edge) > 0 else {
            throw Unfit(description: "marker \(axisMarker.id)'s edge is along the board's normal")
        }
        let x = normalize(inPlane), z = cross(x, up)
        let rotation = Matrix3(rows: x, up, z)
        return MarkerFrame(transform: Similarity3(scale: 1, rotation: rotation, translation: -(rotation * origin)),
                           markers: markers.count, planeRMS: planeRMS, axisMarkerID: axisMarker.id)
    }
}
