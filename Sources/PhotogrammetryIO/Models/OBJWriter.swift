import Foundation
import PhotogrammetryCore

/// A ``MeshModel`` as Wavefront OBJ and its material library: the unit as a comment
/// (`# lengthUnit: unknown` or `metres`), vertex colours as `v x y z r g b` (0–1, sRGB, the
/// MeshLab convention; a textured model's `v` lines have none, ``MeshModel/writesVertexColors``),
/// normals as `vn`, texture coordinates as `vt` when present, each material as `newmtl` with
/// `Kd` and, with a texture, `map_Kd`, and its triangles after its `usemtl`.
enum OBJWriter {
    /// The OBJ text; `materialLibrary` is the `.mtl` file's name beside it.
    package static func obj(_ model: MeshModel, materialLibrary: String) -> String {
        var text = String()
        text.reserveCapacity(80 * model.positions.count + 40 * model.triangles.count)
        text += "# Photogrammetry mesh: \(model.positions.count) vertices, \(model.triangles.count) triangles\n"
        text += "# \(model.lengthUnit.labelText)\n"
        text += "mtllib \(materialLibrary)\no Surface\n"
        if model.writesVertexColors {
            for (p, c) in zip(model.positions, model.colors) {
                text += "v \(p.x) \(p.y) \(p.z) \(colorComponent(c.x)) \(colorComponent(c.y)) \(colorComponent(c.z))\n"
            }
        } else {
            for p in model.positions { text += "v \(p.x) \(p.y) \(p.z)\n" }
        }
        for n in model.normals { text += "vn \(n.x) \(n.y) \(n.z)\n" }
        if let uvs = model.uvs {
            for uv in uvs { text += "vt \(uv.x) \(uv.y)\n" }
        }
        let textured = model.uvs != nil
        for (m, group) in model.trianglesByMaterial.enumerated() where !group.isEmpty {
            text += "usemtl \(USDAText.identifier(model.materials[m].name))\n"
            for index in group {
                let t = model.triangles[index]
                let a = t.x + 1, b = t.y + 1, c = t.z + 1
                text += textured ? "f \(a)/\(a)/\(a) \(b)/\(b)/\(b) \(c)/\(c)/\(c)\n" : "f \(a)//\(a) \(b)//\(b) \(c)//\(c)\n"
            }
        }
        return text
    }

    /// The material library's text: every material of `model`.
    package static func mtl(_ model: MeshModel) -> String {
        var text = "# Photogrammetry material\(model.materials.count > 1 ? "s" : "")\n"
        for material in model.materials {
            text += "newmtl \(USDAText.identifier(material.name))\n"
            text += "Ka 0 0 0\nKd \(material.baseColor.x) \(material.baseColor.y) \(material.baseColor.z)\n"
            text += "Ks 0 0 0\nd 1\nillum 1\n"
            text += "Pr \(material.roughness)\nPm \(material.metallic)\n"
            if let texture = material.texture { text += "map_Kd \(texture.fileName)\n" }
        }
        return text
    }

    /// A byte as 0–1 with three decimals (enough for 8 bits).
    private static func colorComponent(_ value: UInt8) -> String {
        let thousandths = (Int(value) * 1000 + 127) / 255
        return thousandths == 1000 ? "1" : thousandths == 0 ? "0" : "0.\(String(thousandths + 1000).dropFirst())"
    }
}
