import Foundation
import PhotogrammetryCore

/// A model's registered views as nerfstudio's `transforms.json`: intrinsics (once when the views
/// share one camera, else per frame) and each view's camera-to-world matrix in OpenGL axes.
///
/// nerfstudio's convention: `camera_model` "OPENCV" (fl_x, fl_y, cx, cy, w, h, k1, k2, p1, p2;
/// COLMAP's pinhole and radial models map onto it with the missing terms 0) or "OPENCV_FISHEYE"
/// (k1...k4, for SIMPLE_RADIAL_FISHEYE); pixel coordinates as COLMAP's (top-left corner at 0, 0).
/// `transform_matrix` is 4x4, row-major, camera-to-world with the camera's x right, y up, z back:
/// the OpenCV camera-to-world rotation with its y and z columns negated. The world frame is the
/// model's own (`applied_transform` is the identity: no axes swapped, unlike `ns-process-data`).
/// Paths (`file_path`, `ply_file_path`) are relative to the folder holding the file, where
/// nerfstudio resolves them.
public struct NerfstudioTransforms: Codable, Equatable {
    /// A camera's intrinsics in nerfstudio's names.
    public struct Intrinsics: Codable, Equatable, Sendable {
        public var cameraModel: String?
        public var flX: Double?, flY: Double?, cx: Double?, cy: Double?
        public var w: Int?, h: Int?
        public var k1: Double?, k2: Double?, k3: Double?, k4: Double?, p1: Double?, p2: Double?

        public init() {}

        /// `camera` in nerfstudio's terms.
        public init(_ camera: Camera) {
            let f = camera.focalLengths, c = camera.principalPoint, k = camera.radialDistortion
            cameraModel = camera.model.isFisheye ? "OPENCV_FISHEYE" : "OPENCV"
            flX = f.x; flY = f.y; cx = c.x; cy = c.y; w = camera.width; h = camera.height
            k1 = k.x; k2 = k.y
            if camera.model.isFisheye { k3 = 0; k4 = 0 } else { p1 = 0; p2 = 0 }
        }
    }

    /// One registered view.
    public struct Frame: Codable, Equatable {
        /// The image's path from the folder holding the file (`images/NAME`).
        public var filePath: String
        /// Camera-to-world, OpenGL axes, rows.
        public var transformMatrix: [[Double]]
        /// The image's id in `sparse/images.txt`.
        public var colmapImId: Int
        // Per-frame intrinsics, when the views do not share one camera.
        public var cameraModel: String?
        public var flX: Double?, flY: Double?, cx: Double?, cy: Double?
        public var w: Int?, h: Int?
        public var k1: Double?, k2: Double?, k3: Double?, k4: Double?, p1: Double?, p2: Double?
    }

    public var cameraModel: String
    public var flX: Double?, flY: Double?, cx: Double?, cy: Double?
    public var w: Int?, h: Int?
    public var k1: Double?, k2: Double?, k3: Double?, k4: Double?, p1: Double?, p2: Double?
    public var appliedTransform: [[Double]]
    /// The sparse points' PLY from the folder holding the file (nerfstudio seeds splatting from it).
    public var plyFilePath: String?
    public var frames: [Frame]

    /// The registered views of `model`, by name; `filePath` gives an image name's path from the
    /// folder holding the file, `plyFilePath` the sparse points' PLY.
    public init(_ model: Reconstruction, filePath: (String) -> String, plyFilePath: String? = nil) {
        let images = model.images.values.filter(\.isRegistered).sorted { $0.name < $1.name }
        let shared = Set(images.map(\.cameraID)).count <= 1
        let first = images.first.flatMap { model.cameras[$0.cameraID] }.map(Intrinsics.init) ?? Intrinsics()
        cameraModel = first.cameraModel ?? "OPENCV"
        appliedTransform = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
        self.plyFilePath = plyFilePath
        frames = images.map { image in
            var frame = Frame(filePath: filePath(image.name), transformMatrix: Self.openGLCamToWorld(image.camFromWorld!),
                              colmapImId: image.id.rawValue)
            if !shared, let camera = model.cameras[image.cameraID] {
                let own = Intrinsics(camera)
                frame.cameraModel = own.cameraModel
                frame.flX = own.flX; frame.flY = own.flY; frame.cx = own.cx; frame.cy = own.cy
                frame.w = own.w; frame.h = own.h
                frame.k1 = own.k1; frame.k2 = own.k2; frame.k3 = own.k3; frame.k4 = own.k4; frame.p1 = own.p1; frame.p2 = own.p2
            }
            return frame
        }
        if shared {
            flX = first.flX; flY = first.flY; cx = first.cx; cy = first.cy; w = first.w; h = first.h
            k1 = first.k1; k2 = first.k2; k3 = first.k3; k4 = first.k4; p1 = first.p1; p2 = first.p2
        }
    }

    /// A COLMAP world-to-camera pose as a 4x4 camera-to-world matrix in OpenGL axes (rows).
    public static func openGLCamToWorld(_ camFromWorld: Rigid3) -> [[Double]] {
        let rotation = camFromWorld.rotation.transposed, centre = camFromWorld.centerInWorld
        let r = rotation.rows
        return [[r.0.x, -r.0.y, -r.0.z, centre.x], [r.1.x, -r.1.y, -r.1.z, centre.y],
                [r.2.x, -r.2.y, -r.2.z, centre.z], [0, 0, 0, 1]]
    }

    /// The COLMAP world-to-camera pose of a 4x4 camera-to-world matrix in OpenGL axes.
    public static func camFromWorld(openGL m: [[Double]]) -> Rigid3 {
        let camToWorld = Matrix3(rows: SIMD3(m[0][0], -m[0][1], -m[0][2]), SIMD3(m[1][0], -m[1][1], -m[1][2]),
                                 SIMD3(m[2][0], -m[2][1], -m[2][2]))
        return Rigid3(rotation: camToWorld, translation: SIMD3(m[0][3], m[1][3], m[2][3])).inverse
    }

    /// The file as JSON (pretty, keys sorted, snake case; numbers read back to the same doubles).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    /// Reads a file written by ``jsonData()``.
    public static func read(from url: URL) throws -> NerfstudioTransforms {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(NerfstudioTransforms.self, from: Data(contentsOf: url))
    }
}
