import Foundation
import PhotogrammetryCore

/// Reading any tool's `transforms.json` (ours, nerfstudio's `ns-process-data`, ARKit capture
/// apps) into the repository's types: per frame its file path, its COLMAP world-to-camera pose
/// and its intrinsics.
///
/// Lenient where tools differ and strict where a value would be wrong: numbers may be written
/// as integers or decimals (`"w": 1920.0`), `camera_model`, `colmap_im_id`, `applied_transform`
/// and the distortion terms may be missing, intrinsics may sit at the top, in every frame or
/// both (a frame's own win); a `transform_matrix` must be 4x4 (or its top 3x4) of finite
/// numbers with an orthonormal rotation (to 1e-3: float32 round trips are fine, a scaled
/// matrix is not a pose). `applied_transform` is ignored: the frames are already in the file's
/// world frame, which is the frame the poses are read in.
extension NerfstudioTransforms {
    /// One frame of a `transforms.json`: the image it names and its pose, in the repository's types.
    public struct PosedFrame: Equatable, Sendable {
        /// `file_path` as the file writes it (relative to the file's folder, `images/0001.jpg`).
        public var filePath: String
        /// World-to-camera pose, OpenCV axes (x right, y down, z forward), as ``Image/camFromWorld``.
        public var camFromWorld: Rigid3
        /// The frame's intrinsics: its own values, else the file's.
        public var intrinsics: Intrinsics
    }

    /// Reads a `transforms.json` written by any tool.
    /// - Throws: ``PipelineError/invalidInput(_:)``, one line naming the file and what is wrong.
    public static func load(from url: URL) throws -> NerfstudioTransforms {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else {
            throw PipelineError.invalidInput("\(url.path): not a readable transforms.json (no such regular file)")
        }
        guard let data = try? Data(contentsOf: url) else {
            throw PipelineError.invalidInput("\(url.path): cannot be read")
        }
        return try parse(data, source: url.path)
    }

    /// Parses the bytes of a `transforms.json`; `source` names it in errors.
    public static func parse(_ data: Data, source: String) throws -> NerfstudioTransforms {
        func fail(_ what: String) -> PipelineError { .invalidInput("\(source): \(what)") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw fail("not a JSON object (want nerfstudio's transforms.json: fl_x, fl_y, cx, cy, w, h, frames)")
        }
        guard let frameObjects = object["frames"] as? [Any] else { throw fail("no \"frames\" array") }
        var file = NerfstudioTransforms(frames: [])
        file.cameraModel = object["camera_model"] as? String ?? "OPENCV"
        file.plyFilePath = object["ply_file_path"] as? String
        let top = try Intrinsics(object, where: "", fail)
        file.setIntrinsics(top)
        for (index, element) in frameObjects.enumerated() {
            guard let frame = element as? [String: Any] else { throw fail("frame \(index) is not an object") }
            guard let path = frame["file_path"] as? String, !path.isEmpty else { throw fail("frame \(index) has no file_path") }
            guard let rows = frame["transform_matrix"] as? [Any], let matrix = Self.matrix(rows), matrix.count >= 3 else {
                throw fail("frame \(index) (\(path)): transform_matrix is not a 4x4 matrix of numbers")
            }
            let rotation = Matrix3(rows: SIMD3(matrix[0][0], matrix[0][1], matrix[0][2]),
                                   SIMD3(matrix[1][0], matrix[1][1], matrix[1][2]),
                                   SIMD3(matrix[2][0], matrix[2][1], matrix[2][2]))
            guard Self.isRotation(rotation) else {
                throw fail("frame \(index) (\(path)): transform_matrix's rotation is not orthonormal (a scaled or sheared matrix is not a pose)")
            }
            let own = try Intrinsics(frame, where: "frame \(index) (\(path)): ", fail)
            var parsed = Frame(filePath: path, transformMatrix: matrix + (matrix.count == 3 ? [[0, 0, 0, 1]] : []),
                               colmapImId: (frame["colmap_im_id"] as? NSNumber)?.intValue ?? index + 1)
            parsed.setIntrinsics(own)
            file.frames.append(parsed)
        }
        return file
    }

    /// Every frame with its pose in OpenCV axes and its intrinsics resolved.
    public var posedFrames: [PosedFrame] {
        let shared = topIntrinsics
        return frames.map { frame in
            PosedFrame(filePath: frame.filePath, camFromWorld: Self.camFromWorld(openGL: frame.transformMatrix),
                       intrinsics: frame.ownIntrinsics.overriding(shared))
        }
    }

    /// The file's top-level intrinsics.
    var topIntrinsics: Intrinsics {
        var i = Intrinsics()
        i.cameraModel = cameraModel
        i.flX = flX; i.flY = flY; i.cx = cx; i.cy = cy; i.w = w; i.h = h
        i.k1 = k1; i.k2 = k2; i.k3 = k3; i.k4 = k4; i.p1 = p1; i.p2 = p2
        return i
    }

    /// An empty file of these frames (what the reader fills in).
    package init(frames: [Frame]) {
        cameraModel = "OPENCV"
        appliedTransform = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
        self.frames = frames
    }

    mutating func setIntrinsics(_ i: Intrinsics) {
        flX = i.flX; flY = i.flY; cx = i.cx; cy = i.cy; w = i.w; h = i.h
        k1 = i.k1; k2 = i.k2; k3 = i.k3; k4 = i.k4; p1 = i.p1; p2 = i.p2
    }

    /// Rows of numbers, each of 4; nil for anything else.
    package static func matrix(_ rows: [Any]) -> [[Double]]? {
        guard rows.count == 4 || rows.count == 3 else { return nil }
        var matrix: [[Double]] = []
        for row in rows {
            guard let values = row as? [Any], values.count == 4 else { return nil }
            let numbers = values.compactMap { ($0 as? NSNumber)?.doubleValue }
            guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
            matrix.append(numbers)
        }
        return matrix
    }

    /// Whether `r` is a proper rotation to float32 precision.
    package static func isRotation(_ r: Matrix3) -> Bool {
        let product = r * r.transposed, rows = [product.rows.0, product.rows.1, product.rows.2]
        let identity = [SIMD3<Double>(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
        let orthonormal = zip(rows, identity).allSatisfy { length($0 - $1) < 1e-3 }
        return orthonormal && dot(cross(r.rows.0, r.rows.1), r.rows.2) > 0
    }
}

extension NerfstudioTransforms.Frame {
    /// The frame's own intrinsics (nil fields where it has none).
    var ownIntrinsics: NerfstudioTransforms.Intrinsics {
        var i = NerfstudioTransforms.Intrinsics()
        i.cameraModel = cameraModel
        i.flX = flX; i.flY = flY; i.cx = cx; i.cy = cy; i.w = w; i.h = h
        i.k1 = k1; i.k2 = k2; i.k3 = k3; i.k4 = k4; i.p1 = p1; i.p2 = p2
        return i
    }

    mutating func setIntrinsics(_ i: NerfstudioTransforms.Intrinsics) {
        cameraModel = i.cameraModel
        flX = i.flX; flY = i.flY; cx = i.cx; cy = i.cy; w = i.w; h = i.h
        k1 = i.k1; k2 = i.k2; k3 = i.k3; k4 = i.k4; p1 = i.p1; p2 = i.p2
    }
}

extension NerfstudioTransforms.Intrinsics {
    /// The intrinsics of a JSON object (nil where a key is missing); a key holding something
    /// other than a finite number (or a positive size) is an error.
    package init(_ object: [String: Any], where prefix: String, _ fail: (String) -> PipelineError) throws {
        self.init()
        func number(_ key: String) throws -> Double? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let n = (value as? NSNumber)?.doubleValue, n.isFinite else { throw fail(prefix + "\(key) is not a finite number") }
            return n
        }
        func size(_ key: String) throws -> Int? {
            guard let n = try number(key) else { return nil }
            guard n >= 1, n == n.rounded() else { throw fail(prefix + "\(key) is not a positive whole number of pixels") }
            return Int(n)
        }
        cameraModel = object["camera_model"] as? String
        flX = try number("fl_x"); flY = try number("fl_y"); cx = try number("cx"); cy = try number("cy")
        w = try size("w"); h = try size("h")
        k1 = try number("k1"); k2 = try number("k2"); k3 = try number("k3"); k4 = try number("k4")
        p1 = try number("p1"); p2 = try number("p2")
        for (key, value) in [("fl_x", flX), ("fl_y", flY)] where value.map({ $0 <= 0 }) == true {
            throw fail(prefix + "\(key) must be positive")
        }
    }

    /// These values, with `shared`'s where these have none.
    func overriding(_ shared: Self) -> Self {
        var i = self
        i.cameraModel = cameraModel ?? shared.cameraModel
        i.flX = flX ?? shared.flX; i.flY = flY ?? shared.flY; i.cx = cx ?? shared.cx; i.cy = cy ?? shared.cy
        i.w = w ?? shared.w; i.h = h ?? shared.h
        i.k1 = k1 ?? shared.k1; i.k2 = k2 ?? shared.k2; i.k3 = k3 ?? shared.k3; i.k4 = k4 ?? shared.k4
        i.p1 = p1 ?? shared.p1; i.p2 = p2 ?? shared.p2
        return i
    }

    /// The camera these intrinsics describe, when one of the repository's models holds them
    /// exactly: PINHOLE without distortion, RADIAL for k1, k2 with one focal length,
    /// SIMPLE_RADIAL_FISHEYE for an OPENCV_FISHEYE with k1 alone; nil when the focal lengths or
    /// the size are missing, or for terms no model here has (p1, p2, k3, k4, two focal lengths
    /// with distortion).
    public func camera(id: CameraID) -> Camera? {
        guard let fx = flX, let width = w, let height = h else { return nil }
        let fy = flY ?? fx
        let px = cx ?? Double(width) / 2, py = cy ?? Double(height) / 2
        let (d1, d2) = (k1 ?? 0, k2 ?? 0)
        let others = [k3, k4, p1, p2].map { $0 ?? 0 }
        if cameraModel == "OPENCV_FISHEYE" {
            guard d2 == 0, others.allSatisfy({ $0 == 0 }), fx == fy else { return nil }
            return Camera(id: id, model: .simpleRadialFisheye, width: width, height: height, params: [fx, px, py, d1])
        }
        guard others.allSatisfy({ $0 == 0 }) else { return nil }
        if d1 == 0 && d2 == 0 { return Camera(id: id, model: .pinhole, width: width, height: height, params: [fx, fy, px, py]) }
        guard fx == fy else { return nil }
        return Camera(id: id, model: .radial, width: width, height: height, params: [fx, px, py, d1, d2])
    }
}
