import Foundation
import PhotogrammetryCore

/// A COLMAP binary model that cannot be read, with the file and the byte at fault.
///
/// `description` is one line: `images.bin at byte 1234: image 7 refers to camera 3, missing from cameras.bin`.
public struct ColmapBinaryError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// The file name (`cameras.bin`, `images.bin`, `points3D.bin`) or the directory.
    public let file: String
    /// Where in the file the problem was found, when it is in one.
    public let offset: Int?
    /// What is wrong.
    public let message: String

    public init(file: String, offset: Int? = nil, message: String) {
        self.file = file
        self.offset = offset
        self.message = message
    }

    public var description: String { offset.map { "\(file) at byte \($0): \(message)" } ?? "\(file): \(message)" }

    public var errorDescription: String? { description }
}

/// COLMAP's binary model: `cameras.bin`, `images.bin`, `points3D.bin`, the files most NeRF and
/// Gaussian-splatting loaders read first.
///
/// The layout is COLMAP's (src/colmap/scene/reconstruction_io_binary.cc), little-endian:
/// - cameras.bin: `u64` count; per camera `u32` id, `i32` model id, `u64` width, `u64` height,
///   the model's `f64` parameters;
/// - images.bin: `u64` count of registered images; per image `u32` id, `f64` qw qx qy qz,
///   `f64` tx ty tz (`cam_from_world`), `u32` camera id, the name's bytes and a NUL, `u64` count
///   of 2D points, each `f64` x, `f64` y, `u64` 3D point id (all ones, -1, for none);
/// - points3D.bin: `u64` count; per point `u64` id, `f64` x y z, `u8` r g b, `f64` error,
///   `u64` track length, each element `u32` image id, `u32` 2D point index.
///
/// The content is the text model's, value for value: the same registered images, the same
/// points with the same tracks (observations in unregistered images left out). COLMAP 4 also
/// writes `rigs.bin` and `frames.bin`; its reader makes one trivial rig and frame per camera and
/// image when they are absent, which is what a model of single cameras is.
extension Reconstruction {
    /// COLMAP's numbers of its camera models (`CameraModelId`), by name.
    static let colmapModelIDs: [String: Int32] = [
        "SIMPLE_PINHOLE": 0, "PINHOLE": 1, "SIMPLE_RADIAL": 2, "RADIAL": 3, "OPENCV": 4, "OPENCV_FISHEYE": 5,
        "FULL_OPENCV": 6, "FOV": 7, "SIMPLE_RADIAL_FISHEYE": 8, "RADIAL_FISHEYE": 9, "THIN_PRISM_FISHEYE": 10,
        "RAD_TAN_THIN_PRISM_FISHEYE": 11, "SIMPLE_DIVISION": 12, "DIVISION": 13, "SIMPLE_FISHEYE": 14, "FISHEYE": 15,
    ]

    /// How many parameters each COLMAP camera model takes, by its number (for reading models
    /// made elsewhere; the ones read are then those ``ColmapTextFile/camera`` accepts).
    static let colmapParameterCounts: [Int32: Int] = [
        0: 3, 1: 4, 2: 4, 3: 5, 4: 8, 5: 8, 6: 12, 7: 5, 8: 4, 9: 5, 10: 12, 11: 16, 12: 4, 13: 5, 14: 3, 15: 4,
    ]

    /// The `u64` COLMAP writes for "no 3D point" (`kInvalidPoint3DId`, -1 as unsigned).
    static let colmapNoPoint3D = UInt64.max

    /// Writes the model as COLMAP's binary format: `cameras.bin`, `images.bin`, `points3D.bin`,
    /// renamed into place together once all three are written.
    /// - Parameter directory: The model directory (created if missing).
    /// - Throws: ``ColmapBinaryError`` for an image name the format cannot hold (empty, or with a
    ///   NUL, which ends a name), before anything is written; ``ColmapTextError`` when a file
    ///   cannot be written.
    public func writeColmapBinary(to directory: URL) throws {
        for image in images.values where image.isRegistered && (image.name.isEmpty || image.name.utf8.contains(0)) {
            throw ColmapBinaryError(file: "images.bin", message: "image \(image.id): name \"\(image.name.escapingControlCharacters)\" "
                                    + "is empty or holds a NUL, which COLMAP binary cannot hold")
        }
        try Self.writeColmapFiles(colmapBinaryFiles(), to: directory)
    }

    /// The three binary files, by name.
    func colmapBinaryFiles() -> [(String, Data)] {
        var cameraBytes = ByteBuffer(capacity: 8 + cameras.count * 64)
        cameraBytes.append(UInt64(cameras.count))
        for camera in cameras.values.sorted(by: { $0.id < $1.id }) {
            cameraBytes.append(UInt32(truncatingIfNeeded: camera.id.rawValue))
            cameraBytes.append(Self.colmapModelIDs[camera.model.name] ?? -1)
            cameraBytes.append(UInt64(camera.width))
            cameraBytes.append(UInt64(camera.height))
            for value in camera.params { cameraBytes.append(value.bitPattern) }
        }

        let registered = images.values.filter(\.isRegistered).sorted { $0.id < $1.id }
        var imageBytes = ByteBuffer(capacity: registered.reduce(8) { $0 + 120 + 24 * $1.points2D.count })
        imageBytes.append(UInt64(registered.count))
        for image in registered {
            guard let pose = image.camFromWorld else { continue }
            imageBytes.append(UInt32(truncatingIfNeeded: image.id.rawValue))
            let q = Rotation.quaternion(pose.rotation)  // (w, x, y, z) in x, y, z, w
            for value in [q.x, q.y, q.z, q.w, pose.translation.x, pose.translation.y, pose.translation.z] {
                imageBytes.append(value.bitPattern)
            }
            imageBytes.append(UInt32(truncatingIfNeeded: image.cameraID.rawValue))
            imageBytes.append(image.name)
            imageBytes.append(UInt8(0))
            imageBytes.append(UInt64(image.points2D.count))
            for (k, point) in image.points2D.enumerated() {
                imageBytes.append(point.x.bitPattern)
                imageBytes.append(point.y.bitPattern)
                let pointID = k < image.point3DIDs.count ? image.point3DIDs[k] : nil
                imageBytes.append(pointID.map { UInt64($0.rawValue) } ?? Self.colmapNoPoint3D)
            }
        }

        let written = colmapPointsToWrite
        var pointBytes = ByteBuffer(capacity: written.reduce(8) { $0 + 59 + 8 * $1.1.track.count })
        pointBytes.append(UInt64(written.count))
        for (id, point) in written {
            pointBytes.append(UInt64(id.rawValue))
            for value in [point.position.x, point.position.y, point.position.z] { pointBytes.append(value.bitPattern) }
            pointBytes.append(contentsOf: [point.color.x, point.color.y, point.color.z])
            pointBytes.append(point.error.bitPattern)
            pointBytes.append(UInt64(point.track.count))
            for element in point.track {
                pointBytes.append(UInt32(truncatingIfNeeded: element.imageID.rawValue))
                pointBytes.append(UInt32(truncatingIfNeeded: element.point2DIndex))
            }
        }
        return [("cameras.bin", cameraBytes.data), ("images.bin", imageBytes.data), ("points3D.bin", pointBytes.data)]
    }

    /// Reads a COLMAP binary model (`cameras.bin`, `images.bin` and, if present, `points3D.bin`).
    ///
    /// As ``readColmapText(from:)``: every image read is registered, the supported camera models
    /// and the reducible ones with zero distortion are read, tracks must name images and
    /// keypoints that exist, and a keypoint whose 3D point's track does not list it is unlinked.
    /// A count larger than the bytes left could hold, a truncated file or bytes after the last
    /// record are errors, never a crash or a large allocation.
    /// - Throws: ``ColmapBinaryError`` naming the file and the byte.
    public static func readColmapBinary(from directory: URL) throws -> Reconstruction {
        var model = Reconstruction()
        var cameras = try ColmapBinaryCursor(directory, "cameras.bin")
        for _ in 0..<(try cameras.count(minimumRecord: 24)) {
            let at = cameras.offset
            let id = Int(try cameras.u32()), modelID = try cameras.i32()
            let width = try cameras.size(), height = try cameras.size()
            guard let parameterCount = colmapParameterCounts[modelID],
                  let name = colmapModelIDs.first(where: { $0.value == modelID })?.key else {
                throw cameras.error("camera \(id): unknown camera model id \(modelID)", at: at)
            }
            let params = try (0..<parameterCount).map { _ in try cameras.f64() }
            let camera = try ColmapTextFile.camera(id: id, modelName: name, width: width, height: height, params: params) {
                cameras.error($0, at: at)
            }
            guard model.cameras[camera.id] == nil else { throw cameras.error("duplicate camera id \(id)", at: at) }
            model.addCamera(camera)
        }
        try cameras.finish()

        var images = try ColmapBinaryCursor(directory, "images.bin")
        var names = Set<String>()
        for _ in 0..<(try images.count(minimumRecord: 73)) {
            let at = images.offset
            let id = Int(try images.u32())
            let q = SIMD4(try images.f64(), try images.f64(), try images.f64(), try images.f64())
            let t = SIMD3(try images.f64(), try images.f64(), try images.f64())
            let cameraID = CameraID(Int(try images.u32()))
            let name = try images.name()
            let norm = (q * q).sum().squareRoot()
            guard norm.isFinite, norm > 1e-12 else { throw images.error("image \(id): quaternion QW QX QY QZ has zero length", at: at) }
            guard model.cameras[cameraID] != nil else {
                throw images.error("image \(id) refers to camera \(cameraID), missing from cameras.bin", at: at)
            }
            guard model.images[ImageID(id)] == nil else { throw images.error("duplicate image id \(id)", at: at) }
            guard names.insert(name).inserted else { throw images.error("image name \(name) used twice", at: at) }
            var image = Image(id: ImageID(id), name: name, cameraID: cameraID,
                              camFromWorld: Rigid3(rotation: Rotation.matrix(quaternion: q), translation: t))
            let count = try images.count(minimumRecord: 24)
            image.points2D.reserveCapacity(count)
            image.point3DIDs.reserveCapacity(count)
            for _ in 0..<count {
                image.points2D.append(SIMD2(try images.f64(), try images.f64()))
                let pointID = try images.u64()
                guard pointID == colmapNoPoint3D || pointID <= UInt64(Int.max) else {
                    throw images.error("image \(id): 3D point id \(pointID) is out of range", at: images.offset - 8)
                }
                image.point3DIDs.append(pointID == colmapNoPoint3D ? nil : Point3DID(Int(pointID)))
            }
            model.addImage(image)
        }
        try images.finish()

        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("points3D.bin").path) {
            var points = try ColmapBinaryCursor(directory, "points3D.bin")
            for _ in 0..<(try points.count(minimumRecord: 43)) {
                let at = points.offset
                let rawID = try points.u64()
                guard rawID <= UInt64(Int.max) else { throw points.error("3D point id \(rawID) is out of range", at: at) }
                let id = Point3DID(Int(rawID))
                let position = SIMD3(try points.f64(), try points.f64(), try points.f64())
                let color = SIMD3(try points.u8(), try points.u8(), try points.u8())
                let error = try points.f64()
                let track = try (0..<(try points.count(minimumRecord: 8))).map { _ in
                    TrackElement(imageID: ImageID(Int(try points.u32())), point2DIndex: Int(try points.u32()))
                }
                let point = Point3D(position: position, color: color, error: error, track: track)
                guard model.points3D[id] == nil else { throw points.error("duplicate 3D point id \(id)", at: at) }
                if let problem = model.trackProblem(of: point, id: id) { throw points.error(problem, at: at) }
                model.insertPoint3D(point, id: id)
            }
            try points.finish()
        }
        model.dropDanglingPointLinks()
        return model
    }
}

/// Little-endian values read in order from one file of a binary model; every read is
/// bounds-checked and fails as ``ColmapBinaryError`` naming the file and the byte.
struct ColmapBinaryCursor {
    let file: String
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ directory: URL, _ file: String) throws {
        self.file = file
        let url = directory.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ColmapBinaryError(file: file, message: "missing in \(directory.path)")
        }
        do { bytes = [UInt8](try Data(contentsOf: url)) } catch {
            throw ColmapBinaryError(file: file, message: "cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    func error(_ message: String, at offset: Int) -> ColmapBinaryError {
        ColmapBinaryError(file: file, offset: offset, message: message)
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= bytes.count else {
            throw error("truncated (\(bytes.count) bytes, a \(size)-byte value wanted here)", at: offset)
        }
        var value: T = 0
        for k in 0..<size { value |= T(bytes[offset + k]) << (8 * k) }
        offset += size
        return value
    }

    mutating func u8() throws -> UInt8 { try integer(UInt8.self) }
    mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    mutating func i32() throws -> Int32 { try integer(Int32.self) }
    mutating func u64() throws -> UInt64 { try integer(UInt64.self) }
    mutating func f64() throws -> Double { Double(bitPattern: try u64()) }

    /// A `u64` count of records of at least `minimumRecord` bytes each; more than the bytes left
    /// could hold is an error (a hostile count must not allocate).
    mutating func count(minimumRecord: Int) throws -> Int {
        let at = offset
        let value = try u64()
        guard value <= UInt64(bytes.count - offset) / UInt64(minimumRecord) else {
            throw error("count \(value) is more than the \(bytes.count - offset) bytes left can hold", at: at)
        }
        return Int(value)
    }

    /// A `u64` image size in pixels, positive and at most 2^31 - 1.
    mutating func size() throws -> Int {
        let at = offset
        let value = try u64()
        guard value >= 1, value <= UInt64(Int32.max) else { throw error("image size \(value) is out of range", at: at) }
        return Int(value)
    }

    /// A NUL-terminated, non-empty UTF-8 name.
    mutating func name() throws -> String {
        let at = offset
        guard let end = bytes[offset...].firstIndex(of: 0) else { throw error("image name has no terminating NUL", at: at) }
        guard end > offset, let name = String(bytes: bytes[offset..<end], encoding: .utf8) else {
            throw error("image name is empty or not UTF-8", at: at)
        }
        offset = end + 1
        return name
    }

    /// Throws unless every byte was read.
    func finish() throws {
        guard offset == bytes.count else { throw error("\(bytes.count - offset) bytes after the last record", at: offset) }
    }
}
