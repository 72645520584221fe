import PhotogrammetryCore

extension Reconstruction {
    /// The model scaled about the world origin by `factor`: points and camera centres (so
    /// translations) times `factor`; rotations, intrinsics and keypoints unchanged.
    public func scaled(by factor: Double) -> Reconstruction {
        guard factor != 1 else { return self }
        var model = self
        for (id, image) in model.images {
            guard let pose = image.camFromWorld else { continue }
            model.images[id]?.camFromWorld = Rigid3(rotation: pose.rotation, translation: pose.translation * factor)
        }
        for id in model.points3D.keys { model.points3D[id]?.position *= factor }
        return model
    }
}
