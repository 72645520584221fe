/// One image of a reconstruction: its keypoints, its camera and, once registered, its pose.
public struct Image: Sendable {
    public var id: ImageID
    /// The file name relative to the capture's image folder (as COLMAP's NAME).
    public var name: String
    public var cameraID: CameraID
    /// The pose, nil until the image is registered.
    public var camFromWorld: Rigid3?
    /// Keypoint positions in pixels (COLMAP convention: top-left corner at 0, 0).
    public var points2D: [SIMD2<Double>]
    /// For each keypoint, the 3D point it observes, if any.
    public var point3DIDs: [Point3DID?]

    public init(id: ImageID, name: String, cameraID: CameraID, camFromWorld: Rigid3? = nil,
                points2D: [SIMD2<Double>] = []) {
        self.id = id
        self.name = name
        self.cameraID = cameraID
        self.camFromWorld = camFromWorld
        self.points2D = points2D
        self.point3DIDs = Array(repeating: nil, count: points2D.count)
    }

    /// Whether the image has a pose.
    public var isRegistered: Bool { camFromWorld != nil }

    /// How many keypoints observe a 3D point.
    public var numPoints3D: Int { point3DIDs.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
}
