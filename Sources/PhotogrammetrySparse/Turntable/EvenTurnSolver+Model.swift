import PhotogrammetryCore
import PhotogrammetryBridge

extension EvenTurnSolver.Result {
    /// The turn as a model: one pinhole camera (`camera`'s id and size, the turn's focal length
    /// and principal point), frame i as image i + 1 named `names[i]` at its pose in the plate's
    /// frame, each track a point observed at its tracked positions (the images' keypoints).
    public func model(camera: Camera, names: [String]) -> Reconstruction {
        var model = Reconstruction()
        model.addCamera(Camera(id: camera.id, model: .simplePinhole, width: camera.width, height: camera.height,
                               params: [motion.focalLength, motion.principalPoint.x, motion.principalPoint.y]))
        var keypoints = [[SIMD2<Double>]](repeating: [], count: names.count)
        var tracks = [[TrackElement]](repeating: [], count: motion.points.count)
        for observation in motion.observations where motion.points[observation.point].x.isFinite {
            tracks[observation.point].append(TrackElement(imageID: ImageID(observation.frame + 1),
                                                          point2DIndex: keypoints[observation.frame].count))
            keypoints[observation.frame].append(observation.xy)
        }
        for (i, name) in names.enumerated() {
            model.addImage(Image(id: ImageID(i + 1), name: name, cameraID: camera.id, camFromWorld: motion.camFromPlate(i),
                                 points2D: keypoints[i]))
        }
        for (position, track) in zip(motion.points, tracks) where track.count >= 2 {
            _ = model.addPoint3D(Point3D(position: position, track: track))
        }
        model.updatePointErrors()
        return model
    }
}
