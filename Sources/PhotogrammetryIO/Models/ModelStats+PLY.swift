import Foundation
import PhotogrammetryCore

/// PLY (ascii or binary), read and checked as the reader does (``ModelReader/plyMesh(_:)``):
/// vertices, faces (polygons as fans), and a `comment TextureFile NAME` in the header
/// (MeshLab's convention) as a texture page; metres only when `comment lengthUnit metres` says so.
extension ModelStats {
    package static func ply(_ url: URL, data: Data) throws -> ModelStats {
        let mesh = try ModelReader.plyMesh(url)
        let textures = try ModelReader.textureFiles(url).map { image -> TextureSize in
            let file = url.deletingLastPathComponent().appendingPathComponent(image)
            let bytes = image.contains("..") ? nil : RegularFile.contentsIfReadable(file)
            return bytes.flatMap(imageSize) ?? TextureSize(width: 0, height: 0)
        }
        let bounds = mesh.withPoints { flat -> BoundingBox? in
            guard flat.count >= 3 else { return nil }
            var low = SIMD3<Double>(repeating: .infinity), high = -low
            for i in stride(from: 0, to: flat.count, by: 3) {
                let p = SIMD3(Double(flat[i]), Double(flat[i + 1]), Double(flat[i + 2]))
                low = pointwiseMin(low, p)
                high = pointwiseMax(high, p)
            }
            return BoundingBox(min: low, max: high)
        }
        return ModelStats(file: url.path, format: .ply, vertices: mesh.pointCount, triangles: mesh.triangleCount,
                          bounds: bounds, metersPerUnit: try ModelReader.plyLengthUnit(url) == .metres ? 1 : nil,
                          textures: textures, fileBytes: 0)
    }
}
