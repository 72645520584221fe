import Foundation
import PhotogrammetryCore

/// A model's registered cameras as a mesh of small pyramids, for a viewer (MeshLab, Blender,
/// CloudCompare) to show where each photo was taken beside the points.
///
/// Each camera is 6 vertices and 7 triangles, in the order of the images' names: the apex at the
/// camera's centre; the rectangle of the image's four corners (pixels (0, 0), (w, 0), (w, h),
/// (0, h) through the camera's focal lengths and principal point, distortion left out) at
/// ``depth(for:)`` in front of it, so the pyramid has the photo's aspect ratio and field of view;
/// and a triangle on the image's top edge pointing up (a quarter of the image's height), which
/// tells the photo's up from its down. Four triangles form the pyramid's sides, two the image
/// rectangle. Every vertex of a camera has one colour, blue for the first image by name to red
/// for the last, so the capture order shows. Binary little-endian PLY, `float x y z`, `uchar
/// red green blue`, faces as `list uchar int vertex_indices`, in the model's frame and unit.
public enum CameraFrustaPLY {
    /// The pyramid's depth as a fraction of the scene's typical viewing distance.
    public static let depthFraction = 0.1
    /// Vertices and triangles per camera.
    public static let verticesPerCamera = 6, trianglesPerCamera = 7

    /// The file's bytes.
    public static func data(_ model: Reconstruction) -> Data {
        let images = model.images.values.filter(\.isRegistered).sorted { $0.name < $1.name }
        let depth = depth(for: model)
        var vertices: [(SIMD3<Float>, SIMD3<UInt8>)] = []
        var triangles: [SIMD3<Int32>] = []
        for (k, image) in images.enumerated() {
            guard let pose = image.camFromWorld, let camera = model.cameras[image.cameraID] else { continue }
            let t = images.count > 1 ? Double(k) / Double(images.count - 1) : 0
            let colour = SIMD3<UInt8>(UInt8(40 + 215 * t), UInt8(90 - 30 * t), UInt8(255 - 215 * t))
            let f = camera.focalLengths, c = camera.principalPoint
            let w = Double(camera.width), h = Double(camera.height)
            let worldFromCam = pose.inverse
            func world(_ u: Double, _ v: Double) -> SIMD3<Float> {
                SIMD3<Float>(worldFromCam.apply(SIMD3((u - c.x) / f.x * depth, (v - c.y) / f.y * depth, depth)))
            }
            let first = Int32(vertices.count)
            let points = [SIMD3<Float>(pose.centerInWorld), world(0, 0), world(w, 0), world(w, h), world(0, h),
                          world(w / 2, -h / 4)]
            vertices += points.map { ($0, colour) }
            let local: [SIMD3<Int32>] = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [1, 3, 2], [1, 4, 3], [1, 2, 5]]
            triangles += local.map { $0 &+ first }
        }
        let header = "ply\nformat binary_little_endian 1.0\n"
            + "comment Photogrammetry camera frusta: \(triangles.count / trianglesPerCamera) cameras, "
            + "\(verticesPerCamera) vertices and \(trianglesPerCamera) triangles each\n"
            + "element vertex \(vertices.count)\nproperty float x\nproperty float y\nproperty float z\n"
            + "property uchar red\nproperty uchar green\nproperty uchar blue\n"
            + "element face \(triangles.count)\nproperty list uchar int vertex_indices\nend_header\n"
        var out = ByteBuffer(capacity: header.utf8.count + 15 * vertices.count + 13 * triangles.count)
        out.append(header)
        for (position, colour) in vertices {
            out.append(position)
            out.append(contentsOf: [colour.x, colour.y, colour.z])
        }
        for triangle in triangles {
            out.append(UInt8(3))
            out.append(triangle.x)
            out.append(triangle.y)
            out.append(triangle.z)
        }
        return out.data
    }

    /// How far in front of its centre each camera's image rectangle is drawn: ``depthFraction``
    /// of the median, over the registered images, of the median depth of the points each one
    /// sees (how far the cameras look); without points, of the median distance of the cameras
    /// from their centroid; 1 when neither is positive (one camera, no points).
    public static func depth(for model: Reconstruction) -> Double {
        let images = model.images.values.filter(\.isRegistered)
        var viewing: [Double] = []
        for image in images {
            guard let pose = image.camFromWorld else { continue }
            let depths = image.point3DIDs.compactMap { id in id.flatMap { model.points3D[$0] }.map { pose.apply($0.position).z } }
                .filter { $0 > 0 }
            if let median = depths.median() { viewing.append(median) }
        }
        if viewing.isEmpty {
            let centres = images.compactMap { $0.camFromWorld?.centerInWorld }
            if !centres.isEmpty {
                let centroid = centres.reduce(SIMD3<Double>(), +) / Double(centres.count)
                viewing = centres.map { length($0 - centroid) }
            }
        }
        let typical = viewing.median() ?? 0
        return typical > 0 && typical.isFinite ? depthFraction * typical : 1
    }
}
