import Foundation

/// A model as a checkpoint: every number stored as its exact bits (packed bytes), so a loaded
/// model is the model that was saved, to the last bit, and later stages see the same inputs.
extension Reconstruction: Codable {
    /// One image: its keypoints and 3D point ids packed, its pose as 12 doubles (rotation row
    /// major, then translation) or none.
    struct StoredImage: Codable {
        package var id: Int
        package var name: String
        package var camera: Int
        package var pose: Data?
        package var points2D: Data
        /// Point ids per keypoint, 0 for none.
        package var point3DIDs: Data
    }

    /// One camera.
    struct StoredCamera: Codable {
        package var id: Int
        package var model: Int
        package var width: Int
        package var height: Int
        package var params: Data
    }

    /// The points, column-wise: ids, positions, colours, errors, and tracks as one flat list of
    /// (image id, keypoint index) with each point's track length.
    struct StoredPoints: Codable {
        package var ids: Data
        package var positions: Data
        package var colors: Data
        package var errors: Data
        var trackLengths: Data
        package var tracks: Data
    }

    package enum CodingKeys: String, CodingKey { case cameras, images, points, nextPoint3DID = "next_point3D_id" }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        for stored in try container.decode([StoredCamera].self, forKey: .cameras) {
            guard let model = CameraModel(rawValue: stored.model) else { throw PipelineError.io("checkpoint: unknown camera model") }
            let params = try stored.params.unpacked(as: Double.self)
            guard params.count == model.parameterCount else { throw PipelineError.io("checkpoint: camera parameters") }
            addCamera(Camera(id: CameraID(stored.id), model: model, width: stored.width, height: stored.height, params: params))
        }
        for stored in try container.decode([StoredImage].self, forKey: .images) {
            var pose: Rigid3?
            if let data = stored.pose {
                let v = try data.unpacked(as: Double.self)
                guard v.count == 12 else { throw PipelineError.io("checkpoint: pose") }
                pose = Rigid3(rotation: Matrix3(rowMajor: Array(v[0..<9])), translation: SIMD3(v[9], v[10], v[11]))
            }
            var image = Image(id: ImageID(stored.id), name: stored.name, cameraID: CameraID(stored.camera), camFromWorld: pose,
                              points2D: try stored.points2D.unpacked(as: SIMD2<Double>.self))
            let ids = try stored.point3DIDs.unpacked(as: Int64.self)
            guard ids.count == image.points2D.count else { throw PipelineError.io("checkpoint: point ids") }
            image.point3DIDs = ids.map { $0 == 0 ? nil : Point3DID(Int($0)) }
            addImage(image)
        }
        let points = try container.decode(StoredPoints.self, forKey: .points)
        let ids = try points.ids.unpacked(as: Int64.self), positions = try points.positions.unpacked(as: SIMD3<Double>.self)
        let colors = try points.colors.unpacked(as: SIMD3<UInt8>.self), errors = try points.errors.unpacked(as: Double.self)
        let lengths = try points.trackLengths.unpacked(as: Int32.self), tracks = try points.tracks.unpacked(as: SIMD2<Int64>.self)
        guard [positions.count, colors.count, errors.count, lengths.count].allSatisfy({ $0 == ids.count }),
              lengths.reduce(0, { $0 + Int($1) }) == tracks.count else { throw PipelineError.io("checkpoint: points") }
        var start = 0
        for i in ids.indices {
            let track = tracks[start..<start + Int(lengths[i])].map { TrackElement(imageID: ImageID(Int($0.x)), point2DIndex: Int($0.y)) }
            start += Int(lengths[i])
            points3D[Point3DID(Int(ids[i]))] = Point3D(position: positions[i], color: colors[i], error: errors[i], track: track)
        }
        nextPoint3DID = try container.decode(Int.self, forKey: .nextPoint3DID)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cameras.values.sorted { $0.id < $1.id }.map {
            StoredCamera(id: $0.id.rawValue, model: $0.model.rawValue, width: $0.width, height: $0.height, params: Data(packing: $0.params))
        }, forKey: .cameras)
        try container.encode(images.values.sorted { $0.id < $1.id }.map { image in
            StoredImage(id: image.id.rawValue, name: image.name, camera: image.cameraID.rawValue,
                        pose: image.camFromWorld.map { pose in
                            Data(packing: pose.rotation.rowMajor + [pose.translation.x, pose.translation.y, pose.translation.z])
                        },
                        points2D: Data(packing: image.points2D),
                        point3DIDs: Data(packing: image.point3DIDs.map { Int64($0?.rawValue ?? 0) }))
        }, forKey: .images)
        let sorted = points3D.sorted { $0.key < $1.key }
        try container.encode(StoredPoints(
            ids: Data(packing: sorted.map { Int64($0.key.rawValue) }), positions: Data(packing: sorted.map(\.value.position)),
            colors: Data(packing: sorted.map(\.value.color)), errors: Data(packing: sorted.map(\.value.error)),
            trackLengths: Data(packing: sorted.map { Int32($0.value.track.count) }),
            tracks: Data(packing: sorted.flatMap { $0.value.track.map { SIMD2<Int64>(Int64($0.imageID.rawValue), Int64($0.point2DIndex)) } })),
                             forKey: .points)
        try container.encode(nextPoint3DID, forKey: .nextPoint3DID)
    }
}
