import PhotogrammetryCore

extension Reconstruction {
    /// The box the cameras of an orbit look at: for every registered camera, the point on its
    /// optical axis at the depth of the object centre (``CaptureGeometry/objectCenter``), grown on
    /// every axis by half the frame's longer side at that depth; the box around all of them. Nil
    /// unless the cameras orbit an object.
    ///
    /// Why: an orbit's photos also hold the ground and background to the horizon, and the
    /// features find it too, so the sparse points' extent reaches far past the object
    /// (synthetic-orbit: 1st-99th percentile 9.2 m wide, the object 2.5 m, this box 4.3 m). Each
    /// camera's own frame bounds what it was pointed at, whatever the object's size.
    public func viewedRegion() -> BoundingBox? {
        let registered = images.values.filter(\.isRegistered)
        guard let geometry = CaptureGeometry.measure(camFromWorld: registered.map { $0.camFromWorld! }),
              geometry.layout == .orbit else { return nil }
        var box: BoundingBox?
        for image in registered {
            guard let pose = image.camFromWorld, let camera = cameras[image.cameraID] else { continue }
            let center = pose.centerInWorld, axis = pose.viewingDirectionInWorld
            let depth = dot(geometry.objectCenter - center, axis)
            guard depth > 0 else { continue }
            let focal = camera.focalLengths
            let reach = depth * max(Double(camera.width) / (2 * focal.x), Double(camera.height) / (2 * focal.y))
            let lookAt = center + depth * axis
            let own = BoundingBox(min: lookAt - SIMD3(repeating: reach), max: lookAt + SIMD3(repeating: reach))
            box = box?.union(own) ?? own
        }
        return box
    }
}
