import Foundation
import PhotogrammetryCore

extension IncrementalMapper {
    /// How far from the image centre the registered images' observations reach, the least over
    /// the cameras: the 90th percentile of their distance from the centre, as a fraction of the
    /// half-diagonal. 1 when no camera has observations.
    func observationSpread() -> Double {
        var radii: [CameraID: [Double]] = [:]
        for i in registrationOrder {
            let image = reconstruction.images[ImageID(i + 1)]!
            guard let camera = reconstruction.cameras[image.cameraID] else { continue }
            let centre = SIMD2(Double(camera.width), Double(camera.height)) / 2
            let halfDiagonal = (centre * centre).sum().squareRoot()
            for (k, point) in image.point3DIDs.enumerated() where point != nil {
                let d = image.points2D[k] - centre
                radii[image.cameraID, default: []].append((d * d).sum().squareRoot() / halfDiagonal)
            }
        }
        var spread = 1.0
        for var values in radii.values where !values.isEmpty {
            values.sort()
            spread = min(spread, values[min(values.count - 1, Int(0.9 * Double(values.count)))])
        }
        return spread
    }
}
