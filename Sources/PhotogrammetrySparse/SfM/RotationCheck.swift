import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The view graph's averaged rotations (``RotationConsistency``) under the mapper's current focal
/// lengths, recomputed when a camera's focal length has moved: the reference a registered pose is
/// checked against.
///
/// The rotations a fundamental matrix gives depend on the focal length: under a guess four times
/// too short (lowtex-turntable's first estimate, 284 px for 1,111) a pair's turn comes out several
/// times too large, and every true pose would disagree with the average. The mapper's own focal
/// length, after PnP's ladder and bundle adjustment, is the one to average under.
package final class RotationCheck {
    package let options: RotationConsistency
    package let graph: MatchGraph
    package let keypoints: [[SIMD2<Double>]]
    /// The camera of each image.
    package let cameraOfImage: [CameraID]
    package let threads: Int
    /// The focal length of each camera the rotations were averaged under.
    private var focalLengths: [CameraID: Double] = [:]
    private var cached: [Int: Matrix3] = [:]
    private var cachedParts: [Int: Int] = [:]

    /// Relative change of a focal length from which the rotations are averaged again: 10 %.
    static let maxFocalChange = 0.1

    package init(options: RotationConsistency, graph: MatchGraph, keypoints: [[SIMD2<Double>]], cameraOfImage: [CameraID],
         threads: Int) {
        self.options = options
        self.graph = graph
        self.keypoints = keypoints
        self.cameraOfImage = cameraOfImage
        self.threads = threads
    }

    /// The largest rotation error allowed, degrees.
    var maxErrorDeg: Double { options.maxResidualDeg }

    /// The averaged rotations under `cameras`.
    package func rotations(cameras: [CameraID: Camera]) -> [Int: Matrix3] { averaged(cameras: cameras).rotations }

    /// The averaged rotations under `cameras`, and each image's connected part of the voting
    /// pairs (rotations compare only within a part).
    func averaged(cameras: [CameraID: Camera]) -> (rotations: [Int: Matrix3], parts: [Int: Int]) {
        let stale = focalLengths.isEmpty || cameras.contains { id, camera in
            guard let used = focalLengths[id] else { return true }
            return abs(camera.meanFocalLength - used) > Self.maxFocalChange * used
        }
        if stale {
            let calibration = cameraOfImage.map { cameras[$0]!.calibrationMatrix }
            (cached, cachedParts) = options.averagedRotationsAndParts(graph, calibration: calibration, keypoints: keypoints,
                                                                      threads: threads)
            focalLengths = cameras.mapValues(\.meanFocalLength)
            trace("rotation check: averaged again under focal lengths \(focalLengths.values.map { Int($0) })")
        }
        return (cached, cachedParts)
    }
}
