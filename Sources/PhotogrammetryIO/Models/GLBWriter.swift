import Foundation
import PhotogrammetryCore

/// A ``MeshModel`` as glTF 2.0 binary (`.glb`): one mesh of a triangle primitive per material
/// (each with the vertices it uses) with POSITION, NORMAL, COLOR_0 (linear float RGB; not for a
/// textured model, whose texture a client would multiply with it:
/// ``MeshModel/writesVertexColors``), optional TEXCOORD_0, 32-bit indices, and a
/// metallic-roughness material (with `baseColorTexture` when the material has a texture, whose
/// image is stored in the binary chunk). glTF is metres; a model of unknown scale says so in
/// `asset.extras` (`{"lengthUnit": "unknown"}`, or `"metres"`).
enum GLBWriter {
    package static func data(_ model: MeshModel) throws -> Data {
        var bin = ByteBuffer(capacity: model.positions.count * 40 + model.triangles.count * 12 + 64)
        var views: [[String: Any]] = []
        var accessors: [[String: Any]] = []
        var attributes: [String: Int] = [:]

        /// Appends one buffer view of `body`'s bytes (4-byte aligned) and its accessor.
        func add(_ name: String?, count: Int, type: String, componentType: Int, target: Int?,
                 extra: [String: Any] = [:], body: (inout ByteBuffer) -> Void) -> Int {
            bin.pad(to: 4)
            let start = bin.count
            body(&bin)
            var view: [String: Any] = ["buffer": 0, "byteOffset": start, "byteLength": bin.count - start]
            if let target { view["target"] = target }
            views.append(view)
            var accessor: [String: Any] = ["bufferView": views.count - 1, "componentType": componentType,
                                           "count": count, "type": type]
            accessor.merge(extra) { _, new in new }
            accessors.append(accessor)
            if let name { attributes[name] = accessors.count - 1 }
            return accessors.count - 1
        }

        let float = 5126, unsignedInt = 5125, arrayBuffer = 34962, elementArrayBuffer = 34963
        var json: [String: Any] = [:]
        var primitives: [[String: Any]] = []
        let groups = model.trianglesByMaterial
        for (m, group) in groups.enumerated() where !group.isEmpty {
            // Each primitive holds the vertices its triangles use (all of them for one material),
            // so readers that take primitives one by one never see a vertex twice.
            var vertices: [Int]
            var local: [Int32]
            if groups.count == 1 {
                vertices = Array(model.positions.indices)
                local = Array(0..<Int32(model.positions.count))
            } else {
                local = [Int32](repeating: -1, count: model.positions.count)
                vertices = []
                for t in group {
                    for v in [model.triangles[t].x, model.triangles[t].y, model.triangles[t].z] where local[Int(v)] < 0 {
                        local[Int(v)] = Int32(vertices.count)
                        vertices.append(Int(v))
                    }
                }
            }
            attributes = [:]
            var lo = SIMD3<Float>(repeating: .infinity), hi = -lo
            for v in vertices {
                lo = pointwiseMin(lo, model.positions[v])
                hi = pointwiseMax(hi, model.positions[v])
            }
            if vertices.isEmpty { (lo, hi) = (.zero, .zero) }
            _ = add("POSITION", count: vertices.count, type: "VEC3", componentType: float, target: arrayBuffer,
                    extra: ["min": [lo.x, lo.y, lo.z].map(Double.init), "max": [hi.x, hi.y, hi.z].map(Double.init)]) { b in
                for v in vertices { b.append(model.positions[v]) }
            }
            _ = add("NORMAL", count: vertices.count, type: "VEC3", componentType: float, target: arrayBuffer) { b in
                for v in vertices { b.append(model.normals[v]) }
            }
            if model.writesVertexColors {
                _ = add("COLOR_0", count: vertices.count, type: "VEC3", componentType: float, target: arrayBuffer) { b in
                    for v in vertices {
                        let c = model.colors[v]
                        b.append(SIMD3(USDAText.sRGBToLinear[Int(c.x)], USDAText.sRGBToLinear[Int(c.y)], USDAText.sRGBToLinear[Int(c.z)]))
                    }
                }
            }
            if let uvs = model.uvs {
                // glTF's v runs down the image; ours up (OpenGL).
                _ = add("TEXCOORD_0", count: vertices.count, type: "VEC2", componentType: float, target: arrayBuffer) { b in
                    for v in vertices { b.append(uvs[v].x); b.append(1 - uvs[v].y) }
                }
            }
            let indices = add(nil, count: 3 * group.count, type: "SCALAR", componentType: unsignedInt,
                              target: elementArrayBuffer) { b in
                for index in group {
                    let t = model.triangles[index]
                    b.append(UInt32(local[Int(t.x)])); b.append(UInt32(local[Int(t.y)])); b.append(UInt32(local[Int(t.z)]))
                }
            }
            primitives.append(["attributes": attributes, "indices": indices, "material": m, "mode": 4])
        }

        var materials: [[String: Any]] = [], images: [[String: Any]] = [], textures: [[String: Any]] = []
        for material in model.materials {
            var pbr: [String: Any] = [
                "baseColorFactor": [material.baseColor.x, material.baseColor.y, material.baseColor.z, 1].map(Double.init),
                "metallicFactor": Double(material.metallic), "roughnessFactor": Double(material.roughness),
            ]
            if let texture = material.texture {
                bin.pad(to: 4)
                let start = bin.count
                bin.append(contentsOf: texture.data)
                views.append(["buffer": 0, "byteOffset": start, "byteLength": texture.data.count])
                let mime = texture.fileName.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"
                images.append(["bufferView": views.count - 1, "mimeType": mime, "name": texture.fileName])
                textures.append(["source": images.count - 1, "sampler": 0])
                pbr["baseColorTexture"] = ["index": textures.count - 1, "texCoord": 0]
            }
            materials.append(["name": material.name, "pbrMetallicRoughness": pbr, "doubleSided": false])
        }
        if !images.isEmpty {
            json["images"] = images
            json["samplers"] = [["magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071]]
            json["textures"] = textures
        }
        bin.pad(to: 4)
        json["asset"] = ["version": "2.0", "generator": "Photogrammetry",
                         "extras": [LengthUnit.metadataKey: model.lengthUnit.rawValue]] as [String: Any]
        json["scene"] = 0
        json["scenes"] = [["nodes": [0]]]
        json["nodes"] = [["mesh": 0, "name": "Surface"]]
        json["meshes"] = [["name": "Surface", "primitives": primitives]]
        json["materials"] = materials
        json["accessors"] = accessors
        json["bufferViews"] = views
        json["buffers"] = [["byteLength": bin.count]]

        var jsonBytes = ByteBuffer()
        jsonBytes.append(contentsOf: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
        jsonBytes.pad(to: 4, with: 0x20)  // the JSON chunk is padded with spaces

        var out = ByteBuffer(capacity: 28 + jsonBytes.count + bin.count)
        out.append(UInt32(0x4654_6C67))  // "glTF"
        out.append(UInt32(2))
        out.append(UInt32(12 + 8 + jsonBytes.count + 8 + bin.count))
        out.append(UInt32(jsonBytes.count))
        out.append(UInt32(0x4E4F_534A))  // "JSON"
        out.append(contentsOf: jsonBytes.bytes)
        out.append(UInt32(bin.count))
        out.append(UInt32(0x004E_4942))  // "BIN\0"
        out.append(contentsOf: bin.bytes)
        return out.data
    }
}
