import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
#elseif canImport(Darwin)
import Darwin
#endif

/// A COLMAP text model that cannot be read or written, with the file and line at fault.
///
/// `description` is one line: `images.txt:12: expected 10 fields, found 8`.
public struct ColmapTextError: Error, CustomStringConvertible, LocalizedError, Equatable {
    /// The file name (`cameras.txt`, `images.txt`, `points3D.txt`) or the directory.
    public let file: String
    /// The 1-based line number, when the problem is on one line.
    public let line: Int?
    /// What is wrong.
    public let message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    public var errorDescription: String? { description }
}

extension Reconstruction {
    /// Writes the model as COLMAP's text format: `cameras.txt`, `images.txt`, `points3D.txt`.
    ///
    /// The layout matches COLMAP's own writer (headers with counts and mean track length,
    /// `QW QX QY QZ TX TY TZ` of `cam_from_world`, a POINTS2D line of `X Y POINT3D_ID` with -1 for
    /// none, tracks as `IMAGE_ID POINT2D_IDX` pairs). Numbers are written in the shortest form that
    /// reads back to the same double. Like COLMAP, only registered images are written.
    ///
    /// Each file is first written under a temporary name in the same directory and renamed only
    /// once all three are complete, so a failure never leaves a half-written model. The directory
    /// is created if missing. An image name the format cannot hold (empty, or with a line break
    /// or another control character) is refused before anything is written: `images.txt` holds
    /// one image per line, and a name with a newline would shift every line after it.
    /// - Parameter directory: The model directory (for example `OUTPUT/sparse`).
    public func writeColmapText(to directory: URL) throws {
        try checkColmapTextNames()
        try Self.writeColmapFiles(colmapTextFiles(), to: directory)
    }

    /// Refuses an image name COLMAP text cannot hold, before anything is written.
    func checkColmapTextNames() throws {
        for image in images.values where image.isRegistered && (image.name.isEmpty || image.name.hasControlCharacters) {
            throw ColmapTextError(file: "images.txt", message: "image \(image.id): name \"\(image.name.escapingControlCharacters)\" "
                                  + "is empty or holds a line break or control character, which COLMAP text cannot hold")
        }
    }

    /// The three text files, by name.
    func colmapTextFiles() -> [(String, Data)] {
        [("cameras.txt", Data(colmapCamerasText().utf8)), ("images.txt", Data(colmapImagesText().utf8)),
         ("points3D.txt", Data(colmapPoints3DText().utf8))]
    }

    /// Writes `files` into `directory` (created if missing) under temporary names, then renames
    /// them all into place: a failure never leaves part of a model.
    static func writeColmapFiles(_ files: [(String, Data)], to directory: URL) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ColmapTextError(file: directory.path, message: "cannot create directory: \(error.localizedDescription)")
        }
        let tag = UUID().uuidString.prefix(8)
        var temporaries: [(URL, URL)] = []
        defer { for (temporary, _) in temporaries { try? manager.removeItem(at: temporary) } }
        for (name, data) in files {
            let final = directory.appendingPathComponent(name)
            let temporary = directory.appendingPathComponent(".\(name).\(tag).tmp")
            temporaries.append((temporary, final))
            do {
                try data.write(to: temporary)
            } catch {
                throw ColmapTextError(file: name, message: "cannot write \(temporary.path): \(error.localizedDescription)")
            }
        }
        for (temporary, final) in temporaries where rename(temporary.path, final.path) != 0 {
            let reason = String(cString: strerror(errno))
            throw ColmapTextError(file: final.lastPathComponent, message: "cannot rename into place: \(reason)")
        }
    }

    /// The folder holding a COLMAP text model: `url` itself, or `url/sparse` when `url` is a
    /// reconstruction's OUTPUT folder (no `images.txt` of its own, one in `sparse/`).
    public static func colmapModelDirectory(_ url: URL) -> URL {
        let manager = FileManager.default
        let nested = OutputLayout(folder: url).sparse()
        func holdsModel(_ folder: URL) -> Bool {
            ["images.txt", "images.bin"].contains { manager.fileExists(atPath: folder.appendingPathComponent($0).path) }
        }
        return !holdsModel(url) && holdsModel(nested) ? nested : url
    }

    /// Reads a COLMAP text model (`cameras.txt`, `images.txt` and, if present, `points3D.txt`).
    ///
    /// Every image read is registered (the text format stores poses only). Ground-truth models
    /// with empty POINTS2D lines and no points are fine. Camera models beyond the four supported
    /// ones are accepted only when their extra parameters are all zero, mapped to the pinhole
    /// model with the same focal lengths and principal point (`OPENCV`, `FULL_OPENCV`, `FOV`,
    /// `SIMPLE_DIVISION`, `DIVISION`); anything else throws, naming the model.
    /// - Parameter directory: The model directory.
    /// - Throws: ``ColmapTextError`` naming the file and line.
    public static func readColmapText(from directory: URL) throws -> Reconstruction {
        var reconstruction = Reconstruction()
        let cameraLines = try ColmapTextFile.lines(in: directory, name: "cameras.txt")
        for (number, line) in cameraLines where !ColmapTextFile.isSkippable(line) {
            let camera = try ColmapTextFile.parseCamera(line, at: number)
            if reconstruction.cameras[camera.id] != nil {
                throw ColmapTextError(file: "cameras.txt", line: number, message: "duplicate camera id \(camera.id)")
            }
            reconstruction.addCamera(camera)
        }

        let imageLines = try ColmapTextFile.lines(in: directory, name: "images.txt")
        // Like COLMAP's reader: after an image line, the next line is always its POINTS2D line
        // (possibly empty); comments and blank lines are skipped only between images.
        var names: [String: Int] = [:]
        var index = 0
        while index < imageLines.count {
            let (number, line) = imageLines[index]
            index += 1
            if ColmapTextFile.isSkippable(line) { continue }
            var image = try ColmapTextFile.parseImage(line, at: number)
            guard reconstruction.cameras[image.cameraID] != nil else {
                throw ColmapTextError(file: "images.txt", line: number,
                                      message: "image \(image.id) refers to camera \(image.cameraID), missing from cameras.txt")
            }
            if reconstruction.images[image.id] != nil {
                throw ColmapTextError(file: "images.txt", line: number, message: "duplicate image id \(image.id)")
            }
            if let other = names[image.name] {
                throw ColmapTextError(file: "images.txt", line: number,
                                      message: "image name \(image.name) already used on line \(other)")
            }
            names[image.name] = number
            if index < imageLines.count {
                let (pointsNumber, pointsLine) = imageLines[index]
                index += 1
                try ColmapTextFile.parsePoints2D(pointsLine, at: pointsNumber, into: &image)
            }
            reconstruction.addImage(image)
        }

        let pointsURL = directory.appendingPathComponent("points3D.txt")
        if FileManager.default.fileExists(atPath: pointsURL.path) {
            let pointLines = try ColmapTextFile.lines(in: directory, name: "points3D.txt")
            for (number, line) in pointLines where !ColmapTextFile.isSkippable(line) {
                let (id, point) = try ColmapTextFile.parsePoint3D(line, at: number)
                if reconstruction.points3D[id] != nil {
                    throw ColmapTextError(file: "points3D.txt", line: number, message: "duplicate 3D point id \(id)")
                }
                if let problem = reconstruction.trackProblem(of: point, id: id) {
                    throw ColmapTextError(file: "points3D.txt", line: number, message: problem)
                }
                reconstruction.insertPoint3D(point, id: id)
            }
        }

        reconstruction.dropDanglingPointLinks()
        return reconstruction
    }

    /// Why `point`'s track cannot be read into this model (an image it lacks, a keypoint out of
    /// range, one observation twice), or nil.
    func trackProblem(of point: Point3D, id: Point3DID) -> String? {
        // COLMAP's tracks may hold two keypoints of one image (after track merging), so only a
        // repeated (image, keypoint) pair is an error.
        var seen = Set<TrackElement>()
        for element in point.track {
            guard let image = images[element.imageID] else {
                return "3D point \(id) observed in image \(element.imageID), missing from the images"
            }
            guard element.point2DIndex >= 0, element.point2DIndex < image.points2D.count else {
                return "3D point \(id): image \(element.imageID) has no keypoint \(element.point2DIndex) (it has \(image.points2D.count))"
            }
            guard seen.insert(element).inserted else {
                return "3D point \(id) lists image \(element.imageID) keypoint \(element.point2DIndex) twice"
            }
        }
        return nil
    }

    /// Unlinks keypoints that name a 3D point whose track does not list them: the images may name
    /// points the points file lacks (or vice versa), and the tracks are authoritative.
    mutating func dropDanglingPointLinks() {
        for (imageID, image) in images {
            for (k, pointID) in image.point3DIDs.enumerated() {
                guard let pointID else { continue }
                let linked = points3D[pointID]?.track.contains { $0.imageID == imageID && $0.point2DIndex == k } ?? false
                if !linked { images[imageID]?.point3DIDs[k] = nil }
            }
        }
    }

    // MARK: - Writing

    private func colmapCamerasText() -> String {
        var text = """
        # Camera list with one line of data per camera:
        #   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]
        # Number of cameras: \(cameras.count)

        """
        for camera in cameras.values.sorted(by: { $0.id < $1.id }) {
            text += "\(camera.id) \(camera.model.name) \(camera.width) \(camera.height)"
            for value in camera.params { text += " " + ColmapTextFile.format(value) }
            text += "\n"
        }
        return text
    }

    private func colmapImagesText() -> String {
        let registered = images.values.filter(\.isRegistered).sorted { $0.id < $1.id }
        let observations = registered.reduce(0) { $0 + $1.numPoints3D }
        let meanObservations = registered.isEmpty ? 0 : Double(observations) / Double(registered.count)
        var text = """
        # Image list with two lines of data per image:
        #   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME
        #   POINTS2D[] as (X, Y, POINT3D_ID)
        # Number of images: \(registered.count), mean observations per image: \(ColmapTextFile.format(meanObservations))

        """
        text.reserveCapacity(registered.reduce(text.utf8.count) { $0 + 120 + 40 * $1.points2D.count })
        for image in registered {
            guard let pose = image.camFromWorld else { continue }
            let q = Rotation.quaternion(pose.rotation)
            let t = pose.translation
            text += "\(image.id)"
            for value in [q.x, q.y, q.z, q.w, t.x, t.y, t.z] { text += " " + ColmapTextFile.format(value) }
            text += " \(image.cameraID) \(image.name)\n"
            var first = true
            for (k, point) in image.points2D.enumerated() {
                if !first { text += " " }
                first = false
                let pointID = k < image.point3DIDs.count ? image.point3DIDs[k]?.rawValue ?? -1 : -1
                text += ColmapTextFile.format(point.x) + " " + ColmapTextFile.format(point.y) + " \(pointID)"
            }
            text += "\n"
        }
        return text
    }

    /// The points as either format writes them, by id: observations in unregistered images (not
    /// written) are left out, so the model reads back.
    var colmapPointsToWrite: [(Point3DID, Point3D)] {
        points3D.sorted { $0.key < $1.key }.map { id, point in
            var point = point
            point.track.removeAll { images[$0.imageID]?.isRegistered != true }
            return (id, point)
        }
    }

    private func colmapPoints3DText() -> String {
        let written = colmapPointsToWrite
        let observations = written.reduce(0) { $0 + $1.1.track.count }
        let meanTrack = written.isEmpty ? 0 : Double(observations) / Double(written.count)
        var text = """
        # 3D point list with one line of data per point:
        #   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)
        # Number of points: \(points3D.count), mean track length: \(ColmapTextFile.format(meanTrack))

        """
        text.reserveCapacity(text.utf8.count + written.count * 120)
        for (id, point) in written {
            let p = point.position, c = point.color
            text += "\(id) " + ColmapTextFile.format(p.x) + " " + ColmapTextFile.format(p.y) + " "
                + ColmapTextFile.format(p.z) + " \(c.x) \(c.y) \(c.z) " + ColmapTextFile.format(point.error)
            for element in point.track { text += " \(element.imageID) \(element.point2DIndex)" }
            text += "\n"
        }
        return text
    }
}

/// Line-level parsing of the three COLMAP text files.
enum ColmapTextFile {
    /// The shortest decimal form that reads back to the same double (COLMAP writes 17 digits).
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The file's lines with their 1-based numbers; throws if it cannot be read.
    package static func lines(in directory: URL, name: String) throws -> [(Int, Substring)] {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let binary = directory.appendingPathComponent(name.replacingOccurrences(of: ".txt", with: ".bin"))
            let hint = FileManager.default.fileExists(atPath: binary.path)
                ? " (a binary model is there: convert it with `colmap model_converter --output_type TXT`)" : ""
            throw ColmapTextError(file: name, message: "missing in \(directory.path)\(hint)")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ColmapTextError(file: name, message: "cannot read \(url.path): \(error.localizedDescription)")
        }
        let text = String(decoding: data, as: UTF8.self)
        var result: [(Int, Substring)] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            result.append((number, raw.hasSuffix("\r") ? raw.dropLast() : raw))
        }
        // A final newline does not start another (POINTS2D) line.
        if let last = result.last, last.1.isEmpty { result.removeLast() }
        return result
    }

    /// Blank lines and `#` comments.
    static func isSkippable(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.isEmpty || trimmed.first == "#"
    }

    package static func fields(_ line: Substring) -> [Substring] {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    static func double(_ field: Substring, _ what: String, file: String, line: Int) throws -> Double {
        guard let value = Double(field) else {
            throw ColmapTextError(file: file, line: line, message: "\(what): \"\(field)\" is not a number")
        }
        return value
    }

    static func int(_ field: Substring, _ what: String, file: String, line: Int) throws -> Int {
        guard let value = Int(field) else {
            throw ColmapTextError(file: file, line: line, message: "\(what): \"\(field)\" is not an integer")
        }
        return value
    }

    /// Extra COLMAP models read when their distortion is zero: name → (parameter count, the
    /// supported model, how many leading parameters it keeps, a short name of the rest).
    private static let reducible: [String: (count: Int, model: CameraModel, keep: Int, extra: String)] = [
        "OPENCV": (8, .pinhole, 4, "k1 k2 p1 p2"),
        "FULL_OPENCV": (12, .pinhole, 4, "k1 k2 p1 p2 k3 k4 k5 k6"),
        "FOV": (5, .pinhole, 4, "omega"),
        "SIMPLE_DIVISION": (4, .simplePinhole, 3, "k"),
        "DIVISION": (5, .pinhole, 4, "k"),
    ]

    private static let fisheye: Set<String> = [
        "OPENCV_FISHEYE", "RADIAL_FISHEYE", "THIN_PRISM_FISHEYE",
        "RAD_TAN_THIN_PRISM_FISHEYE", "SIMPLE_FISHEYE", "FISHEYE",
    ]

    static func parseCamera(_ line: Substring, at number: Int) throws -> Camera {
        let file = "cameras.txt"
        let f = fields(line)
        guard f.count >= 4 else {
            throw ColmapTextError(file: file, line: number,
                                  message: "expected CAMERA_ID MODEL WIDTH HEIGHT PARAMS[], found \(f.count) fields")
        }
        let id = try int(f[0], "CAMERA_ID", file: file, line: number)
        let width = try int(f[2], "WIDTH", file: file, line: number)
        let height = try int(f[3], "HEIGHT", file: file, line: number)
        let params = try f.dropFirst(4).map { try double($0, "camera parameter", file: file, line: number) }
        return try camera(id: id, modelName: String(f[1]), width: width, height: height, params: params) {
            ColmapTextError(file: file, line: number, message: $0)
        }
    }

    /// The camera of one model's fields (either format): a supported model as it is, a reducible
    /// one with zero distortion as its pinhole model; anything else throws `fail`'s error.
    static func camera(id: Int, modelName name: String, width: Int, height: Int, params: [Double],
                       fail: (String) -> Error) throws -> Camera {
        if let model = CameraModel(name: name) {
            guard params.count == model.parameterCount else {
                throw fail("camera model \(name) takes \(model.parameterCount) parameters, found \(params.count)")
            }
            return Camera(id: CameraID(id), model: model, width: width, height: height, params: params)
        }
        if let rule = reducible[name] {
            guard params.count == rule.count else {
                throw fail("camera model \(name) takes \(rule.count) parameters, found \(params.count)")
            }
            guard params.dropFirst(rule.keep).allSatisfy({ $0 == 0 }) else {
                throw fail("camera model \(name) with non-zero distortion (\(rule.extra)) is not supported; supported: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, SIMPLE_RADIAL_FISHEYE")
            }
            return Camera(id: CameraID(id), model: rule.model, width: width, height: height,
                          params: Array(params.prefix(rule.keep)))
        }
        let why = fisheye.contains(name) ? " (fisheye projection)" : ""
        throw fail("camera model \(name) is not supported\(why); supported: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, SIMPLE_RADIAL_FISHEYE")
    }

    static func parseImage(_ line: Substring, at number: Int) throws -> Image {
        let file = "images.txt"
        let f = fields(line)
        guard f.count >= 10 else {
            throw ColmapTextError(file: file, line: number,
                                  message: "expected IMAGE_ID QW QX QY QZ TX TY TZ CAMERA_ID NAME, found \(f.count) fields")
        }
        let id = try int(f[0], "IMAGE_ID", file: file, line: number)
        let labels = ["QW", "QX", "QY", "QZ", "TX", "TY", "TZ"]
        var v = [Double](repeating: 0, count: 7)
        for k in 0..<7 { v[k] = try double(f[1 + k], labels[k], file: file, line: number) }
        let q = SIMD4(v[0], v[1], v[2], v[3])
        let norm = (q * q).sum().squareRoot()
        guard norm.isFinite, norm > 1e-12 else {
            throw ColmapTextError(file: file, line: number, message: "quaternion QW QX QY QZ has zero length")
        }
        let cameraID = try int(f[8], "CAMERA_ID", file: file, line: number)
        // The name is the rest of the line, as written: names with spaces (which COLMAP's own
        // reader cuts at the first one) read back exactly.
        let name = String(line[f[9].startIndex...])
        let pose = Rigid3(rotation: Rotation.matrix(quaternion: q), translation: SIMD3(v[4], v[5], v[6]))
        return Image(id: ImageID(id), name: name, cameraID: CameraID(cameraID), camFromWorld: pose)
    }

    static func parsePoints2D(_ line: Substring, at number: Int, into image: inout Image) throws {
        let file = "images.txt"
        let f = fields(line)
        guard f.count % 3 == 0 else {
            throw ColmapTextError(file: file, line: number,
                                  message: "POINTS2D of image \(image.id): expected triples X Y POINT3D_ID, found \(f.count) fields")
        }
        var points: [SIMD2<Double>] = []
        var ids: [Point3DID?] = []
        points.reserveCapacity(f.count / 3)
        ids.reserveCapacity(f.count / 3)
        var k = 0
        while k < f.count {
            let x = try double(f[k], "POINTS2D X", file: file, line: number)
            let y = try double(f[k + 1], "POINTS2D Y", file: file, line: number)
            let pointID = try int(f[k + 2], "POINTS2D POINT3D_ID", file: file, line: number)
            points.append(SIMD2(x, y))
            ids.append(pointID < 0 ? nil : Point3DID(pointID))
            k += 3
        }
        image.points2D = points
        image.point3DIDs = ids
    }

    static func parsePoint3D(_ line: Substring, at number: Int) throws -> (Point3DID, Point3D) {
        let file = "points3D.txt"
        let f = fields(line)
        guard f.count >= 8, (f.count - 8) % 2 == 0 else {
            throw ColmapTextError(file: file, line: number,
                                  message: "expected POINT3D_ID X Y Z R G B ERROR then (IMAGE_ID POINT2D_IDX) pairs, found \(f.count) fields")
        }
        let id = try int(f[0], "POINT3D_ID", file: file, line: number)
        let x = try double(f[1], "X", file: file, line: number)
        let y = try double(f[2], "Y", file: file, line: number)
        let z = try double(f[3], "Z", file: file, line: number)
        var rgb = SIMD3<UInt8>()
        for k in 0..<3 {
            let value = try int(f[4 + k], ["R", "G", "B"][k], file: file, line: number)
            guard (0...255).contains(value) else {
                throw ColmapTextError(file: file, line: number, message: "colour \(value) is outside 0...255")
            }
            rgb[k] = UInt8(value)
        }
        let error = try double(f[7], "ERROR", file: file, line: number)
        var track: [TrackElement] = []
        track.reserveCapacity((f.count - 8) / 2)
        var k = 8
        while k < f.count {
            let imageID = try int(f[k], "TRACK IMAGE_ID", file: file, line: number)
            let index = try int(f[k + 1], "TRACK POINT2D_IDX", file: file, line: number)
            track.append(TrackElement(imageID: ImageID(imageID), point2DIndex: index))
            k += 2
        }
        return (Point3DID(id), Point3D(position: SIMD3(x, y, z), color: rgb, error: error, track: track))
    }
}
