import Foundation
import PhotogrammetryCore

extension Reconstruction {
    /// The same cameras with every centre moved `factor` times as far from the origin, their
    /// rotations kept: pose priors whose metres are off by a scale, as a tracking's drift makes them.
    package func centresScaled(by factor: Double) -> Reconstruction {
        var scaled = self
        for (id, image) in images {
            guard let pose = image.camFromWorld else { continue }
            scaled.images[id]?.camFromWorld = Rigid3(rotation: pose.rotation, translation: -(pose.rotation * (factor * pose.centerInWorld)))
        }
        return scaled
    }
}
