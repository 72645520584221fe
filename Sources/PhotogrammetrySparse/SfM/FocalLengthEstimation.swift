import PhotogrammetryCore
import PhotogrammetryBridge

/// Self-calibration's starting point: a camera's focal length from the fundamental matrices of
/// its verified pairs (Bougnoux 1998), robustly pooled.
///
/// Each pair whose two images share the camera gives one estimate; the median of the plausible
/// ones is used when enough pairs agree (interquartile spread within 25%). Captures whose optical
/// axes all meet at one point (an orbit around an object) are degenerate for this formula; they
/// give scattered values, fail the agreement test and keep the default guess for bundle
/// adjustment to refine.
public enum FocalLengthEstimation {
    /// The pooled estimate, or nil when the pairs do not agree.
    /// - Parameters:
    ///   - plausible: the accepted range of focal lengths in pixels.
    public static func estimate(graph: MatchGraph, camera: Camera, cameraOfImage: [CameraID],
                                plausible: ClosedRange<Double>, minPairs: Int = 8) -> Double? {
        var values: [Double] = []
        let principal = camera.principalPoint
        for edge in graph.edges where edge.configuration.hasGeneralMotion && edge.fundamental.count == 9 {
            guard cameraOfImage[edge.first] == camera.id, cameraOfImage[edge.second] == camera.id else { continue }
            guard let (f1, f2) = try? TwoViewEstimator.focalLengths(fundamental: edge.fundamental,
                                                                   principalPoint1: principal, principalPoint2: principal)
            else { continue }
            let f = (f1 * f2).squareRoot()
            if plausible.contains(f) && abs(f1 - f2) < 0.2 * f { values.append(f) }
        }
        guard values.count >= minPairs else { return nil }
        values.sort()
        let q1 = values[values.count / 4], median = values[values.count / 2], q3 = values[3 * values.count / 4]
        return (q3 - q1) <= 0.25 * median ? median : nil
    }
}
