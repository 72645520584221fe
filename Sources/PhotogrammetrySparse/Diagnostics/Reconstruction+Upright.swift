import Foundation
import PhotogrammetryCore

extension Reconstruction {
    /// The rigid motion that stands the model upright, as USD's `upAxis` Y and ARKit's world
    /// expect: the capture's up (``CaptureGeometry/up``: gravity, else the cameras' up vectors)
    /// along +Y, the first registered camera (by name) on +Z of the centre, so that a front view
    /// sees what the first photo saw, and the centre at the origin (the point the optical axes
    /// meet for an orbit, the cameras' mean for a walk-through). Nil when the cameras cannot tell
    /// up; the scale is left alone.
    public func uprightTransform(gravity: SIMD3<Double>? = nil) -> Similarity3? {
        let registered = images.values.filter(\.isRegistered).sorted { $0.name < $1.name }
        let poses = registered.map { $0.camFromWorld! }
        guard let geometry = CaptureGeometry.measure(camFromWorld: poses, gravity: gravity) else { return nil }
        let centers = poses.map(\.centerInWorld)
        let centre = geometry.layout == .orbit ? geometry.objectCenter : centers.reduce(.zero, +) / Double(centers.count)
        let up = geometry.up
        // +Z: towards the first camera, or along its view backwards when it stands on the centre.
        let candidates = [centers[0] - centre, -poses[0].viewingDirectionInWorld]
        guard let forward = candidates.map({ $0 - dot($0, up) * up }).first(where: { length($0) > 1e-9 * max(1, length(centers[0] - centre)) })
        else { return nil }
        let z = normalize(forward), x = cross(up, z)
        let rotation = Matrix3(rows: x, up, z)
        return Similarity3(scale: 1, rotation: rotation, translation: -(rotation * centre))
    }

    /// The model with its world mapped by `similarity`: points, and camera poses
    /// (``Similarity3/transform(_:)``), so that every projection is unchanged.
    public func transformed(by similarity: Similarity3) -> Reconstruction {
        var model = self
        for (id, image) in model.images {
            guard let pose = image.camFromWorld else { continue }
            model.images[id]?.camFromWorld = similarity.transform(pose)
        }
        for (id, point) in points3D { model.points3D[id]?.position = similarity.apply(point.position) }
        return model
    }
}

extension Similarity3: Codable {
    private enum CodingKeys: String, CodingKey { case scale, rotation, translation }

    public init(from decoder: Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        let rotation = try values.decode([Double].self, forKey: .rotation)
        let translation = try values.decode([Double].self, forKey: .translation)
        guard rotation.count == 9, translation.count == 3 else {
            throw DecodingError.dataCorruptedError(forKey: .rotation, in: values, debugDescription: "a 3x3 rotation and a 3-vector")
        }
        self.init(scale: try values.decode(Double.self, forKey: .scale), rotation: Matrix3(rowMajor: rotation),
                  translation: SIMD3(translation[0], translation[1], translation[2]))
    }

    public func encode(to encoder: Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(scale, forKey: .scale)
        try values.encode(rotation.rowMajor, forKey: .rotation)
        try values.encode([translation.x, translation.y, translation.z], forKey: .translation)
    }
}
