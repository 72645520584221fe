import Foundation

/// A ``MeshModel`` as glTF 2.0 binary (`.glb`): one mesh of one triangle primitive with
/// POSITION, NORMAL, COLOR_0 (linear float RGB), optional TEXCOORD_0, 32-bit indices, and a
/// metallic-roughness material (with `baseColorTexture` when the material has a texture,
/// whose image is stored in the binary chunk).
enum GLBWriter {
    static func data(_ model: MeshModel) throws -> Data {
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
        let bounds = model.bounds ?? BoundingBox(min: .zero, max: .zero)
        let lo = SIMD3<Float>(bounds.min), hi = SIMD3<Float>(bounds.max)
        _ = add("POSITION", count: model.positions.count, type: "VEC3", componentType: float, target: arrayBuffer,
                extra: ["min": [lo.x, lo.y, lo.z].map(Double.init), "max": [hi.x, hi.y, hi.z].map(Double.init)]) { b in
            for p in model.positions { b.append(p) }
        }
        _ = add("NORMAL", count: model.normals.count, type: "VEC3", componentType: float, target: arrayBuffer) { b in
            for n in model.normals { b.append(n) }
        }
        _ = add("COLOR_0", count: model.colors.count, type: "VEC3", componentType: float, target: arrayBuffer) { b in
            for c in model.colors {
                b.append(SIMD3(USDAText.sRGBToLinear[Int(c.x)], USDAText.sRGBToLinear[Int(c.y)], USDAText.sRGBToLinear[Int(c.z)]))
            }
        }
        if let uvs = model.uvs {
            // glTF's v runs down the image; ours up (OpenGL).
            _ = add("TEXCOORD_0", count: uvs.count, type: "VEC2", componentType: float, target: arrayBuffer) { b in
                for uv in uvs { b.append(uv.x); b.append(1 - uv.y) }
            }
        }
        let indices = add(nil, count: 3 * model.triangles.count, type: "SCALAR", componentType: unsignedInt,
                          target: elementArrayBuffer) { b in
            for t in model.triangles { b.append(UInt32(t.x)); b.append(UInt32(t.y)); b.append(UInt32(t.z)) }
        }

        let material = model.material
        var pbr: [String: Any] = [
            "baseColorFactor": [material.baseColor.x, material.baseColor.y, material.baseColor.z, 1].map(Double.init),
            "metallicFactor": Double(material.metallic), "roughnessFactor": Double(material.roughness),
        ]
        var json: [String: Any] = [:]
        if let texture = material.texture {
            bin.pad(to: 4)
            let start = bin.count
            bin.append(contentsOf: texture.data)
            views.append(["buffer": 0, "byteOffset": start, "byteLength": texture.data.count])
            let mime = texture.fileName.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"
            json["images"] = [["bufferView": views.count - 1, "mimeType": mime, "name": texture.fileName]]
            json["samplers"] = [["magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071]]
            json["textures"] = [["source": 0, "sampler": 0]]
            pbr["baseColorTexture"] = ["index": 0, "texCoord": 0]
        }
        bin.pad(to: 4)
        json["asset"] = ["version": "2.0", "generator": "Photogrammetry"]
        json["scene"] = 0
        json["scenes"] = [["nodes": [0]]]
        json["nodes"] = [["mesh": 0, "name": "Surface"]]
        json["meshes"] = [["name": "Surface", "primitives": [["attributes": attributes, "indices": indices,
                                                                "material": 0, "mode": 4]]]]
        json["materials"] = [["name": material.name, "pbrMetallicRoughness": pbr, "doubleSided": false]]
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
