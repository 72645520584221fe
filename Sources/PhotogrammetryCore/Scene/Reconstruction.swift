/// Cameras, images and 3D points: the scene model every stage reads and refines.
///
/// Like COLMAP's `Reconstruction`, it keeps the two-way links between keypoints and 3D points
/// consistent: use ``addPoint3D(_:)``, ``addObservation(_:to:)`` and ``deletePoint3D(_:)`` rather
/// than editing `points3D` and `images` directly.
public struct Reconstruction: Sendable {
    public var cameras: [CameraID: Camera] = [:]
    public var images: [ImageID: Image] = [:]
    public var points3D: [Point3DID: Point3D] = [:]
    /// The id the next added point gets (kept by checkpoints, so a loaded model goes on the same).
    var nextPoint3DID = 1

    public init() {}

    /// Adds or replaces a camera.
    public mutating func addCamera(_ camera: Camera) { cameras[camera.id] = camera }

    /// Adds or replaces an image.
    public mutating func addImage(_ image: Image) { images[image.id] = image }

    /// The registered images' ids, in ascending order.
    public var registeredImageIDs: [ImageID] {
        images.values.filter(\.isRegistered).map(\.id).sorted()
    }

    /// Adds a point and links each of its track's keypoints to it; returns its id.
    @discardableResult
    public mutating func addPoint3D(_ point: Point3D) -> Point3DID {
        let id = Point3DID(nextPoint3DID)
        nextPoint3DID += 1
        points3D[id] = point
        for element in point.track {
            images[element.imageID]?.point3DIDs[element.point2DIndex] = id
        }
        return id
    }

    /// Adds a point with a given id (reading a model from disk).
    public mutating func insertPoint3D(_ point: Point3D, id: Point3DID) {
        points3D[id] = point
        nextPoint3DID = max(nextPoint3DID, id.rawValue + 1)
        for element in point.track {
            images[element.imageID]?.point3DIDs[element.point2DIndex] = id
        }
    }

    /// Appends an observation to a point's track and links the keypoint.
    public mutating func addObservation(_ element: TrackElement, to id: Point3DID) {
        points3D[id]?.track.append(element)
        images[element.imageID]?.point3DIDs[element.point2DIndex] = id
    }

    /// Removes one observation; deletes the point when fewer than two remain.
    public mutating func deleteObservation(_ element: TrackElement, from id: Point3DID) {
        guard var point = points3D[id] else { return }
        point.track.removeAll { $0 == element }
        images[element.imageID]?.point3DIDs[element.point2DIndex] = nil
        if point.track.count < 2 {
            points3D[id] = point
            deletePoint3D(id)
        } else {
            points3D[id] = point
        }
    }

    /// Deletes a point and unlinks its keypoints.
    public mutating func deletePoint3D(_ id: Point3DID) {
        guard let point = points3D.removeValue(forKey: id) else { return }
        for element in point.track where images[element.imageID]?.point3DIDs[element.point2DIndex] == id {
            images[element.imageID]?.point3DIDs[element.point2DIndex] = nil
        }
    }

    /// The reprojection error of one observation in pixels; nil if the image is unregistered or
    /// the point lies behind it.
    public func reprojectionError(of element: TrackElement, position: SIMD3<Double>) -> Double? {
        guard let image = images[element.imageID], let pose = image.camFromWorld,
              let camera = cameras[image.cameraID],
              let projected = camera.project(pose.apply(position)) else { return nil }
        let d = projected - image.points2D[element.point2DIndex]
        return (d * d).sum().squareRoot()
    }

    /// Recomputes every point's mean reprojection error over its track (for points3D.txt); -1 for
    /// a point with no observation in front of a registered camera.
    public mutating func updatePointErrors() {
        for (id, point) in points3D {
            let errors = point.track.compactMap { reprojectionError(of: $0, position: point.position) }
            points3D[id]?.error = errors.isEmpty ? -1 : errors.reduce(0, +) / Double(errors.count)
        }
    }

    /// The mean reprojection error over all observations of all points, in pixels: a point seen
    /// in ten images weighs ten times one seen in one.
    public var meanReprojectionError: Double {
        var sum = 0.0, count = 0
        for point in points3D.values {
            for element in point.track {
                if let e = reprojectionError(of: element, position: point.position) {
                    sum += e
                    count += 1
                }
            }
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// The mean over points of each point's mean reprojection error over its observations, in
    /// pixels: each point weighs the same, as in COLMAP's "mean reprojection error". Points
    /// without an observation in front of a registered camera are left out.
    public var meanReprojectionErrorPerPoint: Double {
        var sum = 0.0, count = 0
        for point in points3D.values {
            let errors = point.track.compactMap { reprojectionError(of: $0, position: point.position) }
            guard !errors.isEmpty else { continue }
            sum += errors.reduce(0, +) / Double(errors.count)
            count += 1
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// The total number of observations over all points.
    public var numObservations: Int { points3D.values.reduce(0) { $0 + $1.track.count } }
}
