import Foundation
import PhotogrammetryCore

/// A model's sparse points as the PLY nerfstudio's `ply_file_path` names (splatfacto seeds its
/// Gaussians from it): binary little-endian, per vertex `float x y z` and `uchar red green
/// blue`, the layout nerfstudio's own COLMAP conversion writes (in ASCII), in the model's frame,
/// the frame of `transforms.json`'s `transform_matrix`es. Points in the order of their ids.
public enum SparsePointsPLY {
    /// The file's bytes.
    public static func data(_ model: Reconstruction) -> Data {
        let points = model.points3D.sorted { $0.key < $1.key }.map(\.value)
        let header = "ply\nformat binary_little_endian 1.0\ncomment Photogrammetry sparse points\n"
            + "element vertex \(points.count)\n"
            + "property float x\nproperty float y\nproperty float z\n"
            + "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n"
        var out = ByteBuffer(capacity: header.utf8.count + 15 * points.count)
        out.append(header)
        for point in points {
            out.append(SIMD3<Float>(point.position))
            out.append(contentsOf: [point.color.x, point.color.y, point.color.z])
        }
        return out.data
    }
}
