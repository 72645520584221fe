import Foundation
import PhotogrammetryCore

/// A ``MeshModel`` as binary little-endian PLY: the unit as a header comment (`comment lengthUnit
/// unknown` or `metres`), per vertex position, normal and sRGB colour (not for a textured model,
/// ``MeshModel/writesVertexColors``), and for a textured model the texture coordinates twice
/// over, so that every reader finds them: per vertex as `s t` (Blender's and trimesh's
/// convention) and per face as a `texcoord` list of six floats with the page's `texnumber`
/// (MeshLab's), each page named by a `comment TextureFile` line in page order (the image files
/// lie beside the PLY file).
enum PLYWriter {
    package static func data(_ model: MeshModel) -> Data {
        let uvs = model.uvs
        let pages = model.textures
        let colors = model.writesVertexColors
        var header = "ply\nformat binary_little_endian 1.0\ncomment Photogrammetry mesh\n"
        header += "comment \(LengthUnit.metadataKey) \(model.lengthUnit.rawValue)\n"
        if uvs != nil {
            for page in pages { header += "comment TextureFile \(page.fileName)\n" }
        }
        header += "element vertex \(model.positions.count)\n"
        header += "property float x\nproperty float y\nproperty float z\n"
        header += "property float nx\nproperty float ny\nproperty float nz\n"
        if colors { header += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
        if uvs != nil { header += "property float s\nproperty float t\n" }
        header += "element face \(model.triangles.count)\nproperty list uchar int vertex_indices\n"
        if uvs != nil { header += "property list uchar float texcoord\nproperty int texnumber\n" }
        header += "end_header\n"

        let vertexBytes = 24 + (colors ? 3 : 0) + (uvs != nil ? 8 : 0), faceBytes = 13 + (uvs != nil ? 29 : 0)
        var out = ByteBuffer(capacity: header.utf8.count + vertexBytes * model.positions.count
                                       + faceBytes * model.triangles.count)
        out.append(header)
        for i in model.positions.indices {
            out.append(model.positions[i])
            out.append(model.normals[i])
            if colors {
                out.append(model.colors[i].x)
                out.append(model.colors[i].y)
                out.append(model.colors[i].z)
            }
            if let uvs {
                out.append(uvs[i].x)
                out.append(uvs[i].y)
            }
        }
        // A material without a texture has no page: its faces say -1.
        var pageOfMaterial: [Int32] = []
        var next: Int32 = 0
        for material in model.materials {
            pageOfMaterial.append(material.texture == nil ? -1 : next)
            if material.texture != nil { next += 1 }
        }
        for (f, t) in model.triangles.enumerated() {
            out.append(UInt8(3))
            out.append(t.x)
            out.append(t.y)
            out.append(t.z)
            if let uvs {
                out.append(UInt8(6))
                for corner in [t.x, t.y, t.z] {
                    out.append(uvs[Int(corner)].x)
                    out.append(uvs[Int(corner)].y)
                }
                out.append(pageOfMaterial[Int(model.materialOfTriangle?[f] ?? 0)])
            }
        }
        return out.data
    }
}
