import Foundation

/// glTF 2.0 binary: every triangle primitive's POSITION, COLOR_0 (linear, float or normalised
/// integers, VEC3 or VEC4), TEXCOORD_0 (glTF's v runs down the image: flipped to our v up) and
/// indices, concatenated; each primitive's `baseColorTexture` image (one material per distinct
/// texture: a multi-page atlas), from the binary chunk or a file beside the model.
extension ModelReader {
    /// The JSON and binary chunks of a GLB file (``ModelStats`` reads the same).
    static func glbChunks(_ data: Data, name: String) throws -> (json: [String: Any], binary: Data) {
        let reader = ByteReader(data, name: name)
        guard data.count >= 20, try reader.u32(0) == 0x4654_6C67 else {
            throw ModelStatsError(message: "\(name): not a glTF binary (no glTF magic)")
        }
        guard try reader.u32(4) == 2 else { throw ModelStatsError(message: "\(name): glTF version \(try reader.u32(4)), want 2") }
        let jsonLength = Int(try reader.u32(12))
        guard try reader.u32(16) == 0x4E4F_534A else { throw ModelStatsError(message: "\(name): first chunk is not JSON") }
        let jsonData = try reader.bytes(20, jsonLength)
        var binary = Data()
        let binStart = 20 + jsonLength
        if binStart + 8 <= data.count, try reader.u32(binStart + 4) == 0x004E_4942 {
            binary = try reader.bytes(binStart + 8, Int(try reader.u32(binStart)))
        }
        guard let json = try? JSONSerialization.jsonObject(with: jsonData) as? [String: Any] else {
            throw ModelStatsError(message: "\(name): the JSON chunk is not a JSON object")
        }
        return (json, binary)
    }

    static func glb(_ data: Data, name: String, folder: URL) throws -> MeshModel {
        let (json, binary) = try glbChunks(data, name: name)
        let accessors = json["accessors"] as? [[String: Any]] ?? []
        let views = json["bufferViews"] as? [[String: Any]] ?? []

        /// An accessor's elements as doubles (exact for 32-bit indices) (normalised integers scaled to 0...1), `components`
        /// per element.
        func read(_ index: Any?) throws -> (values: [Double], components: Int) {
            guard let i = index as? Int, accessors.indices.contains(i) else {
                throw ModelStatsError(message: "\(name): a primitive refers to a missing accessor")
            }
            let accessor = accessors[i]
            let count = accessor["count"] as? Int ?? 0
            let components = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4][accessor["type"] as? String ?? ""] ?? 0
            let type = accessor["componentType"] as? Int ?? 0
            let size = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4][type] ?? 0
            guard components > 0, size > 0, count >= 0 else {
                throw ModelStatsError(message: "\(name): accessor \(i) has an unsupported type")
            }
            guard let v = accessor["bufferView"] as? Int, views.indices.contains(v) else {
                throw ModelStatsError(message: "\(name): accessor \(i) has no buffer view (sparse accessors are not supported)")
            }
            let view = views[v]
            guard (view["buffer"] as? Int ?? 0) == 0 else {
                throw ModelStatsError(message: "\(name): accessor \(i) reads an external buffer (not supported)")
            }
            let stride = max(view["byteStride"] as? Int ?? 0, components * size)
            let start = (view["byteOffset"] as? Int ?? 0) + (accessor["byteOffset"] as? Int ?? 0)
            guard start >= 0, count == 0 || start + stride * (count - 1) + components * size <= binary.count else {
                throw ModelStatsError(message: "\(name): accessor \(i) reaches past the binary chunk")
            }
            let normalized = accessor["normalized"] as? Bool ?? false
            var values = [Double](repeating: 0, count: count * components)
            binary.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                for e in 0..<count {
                    for k in 0..<components {
                        let at = start + e * stride + k * size
                        let value: Double
                        switch type {
                        case 5126: value = Double(Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian))
                        case 5125: value = Double(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
                        case 5123: value = Double(raw.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) / (normalized ? 65535 : 1)
                        case 5122: value = Double(Int16(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian)) / (normalized ? 32767 : 1)
                        case 5121: value = Double(raw[at]) / (normalized ? 255 : 1)
                        default: value = Double(Int8(bitPattern: raw[at])) / (normalized ? 127 : 1)
                        }
                        values[e * components + k] = value
                    }
                }
            }
            return (values, components)
        }

        var positions: [SIMD3<Float>] = [], colors: [SIMD3<UInt8>] = [], uvs: [SIMD2<Float>] = []
        var allTextured = true
        var triangles: [SIMD3<Int32>] = []
        var textureIndices: [Int?] = []  // per material of the model: its glTF texture
        var triangleMaterials: [Int32] = []
        let materials = json["materials"] as? [[String: Any]] ?? []
        for mesh in json["meshes"] as? [[String: Any]] ?? [] {
            for primitive in mesh["primitives"] as? [[String: Any]] ?? [] {
                let mode = primitive["mode"] as? Int ?? 4
                guard [4, 5, 6].contains(mode) else { continue }  // points and lines
                let attributes = primitive["attributes"] as? [String: Any] ?? [:]
                let base = Int32(positions.count)
                let p = try read(attributes["POSITION"])
                guard p.components == 3 else { throw ModelStatsError(message: "\(name): POSITION is not VEC3") }
                let count = p.values.count / 3
                for e in 0..<count { positions.append(SIMD3(Float(p.values[3 * e]), Float(p.values[3 * e + 1]), Float(p.values[3 * e + 2]))) }
                if let color = attributes["COLOR_0"] {
                    let c = try read(color)
                    guard c.components >= 3, c.values.count / c.components == count else {
                        throw ModelStatsError(message: "\(name): COLOR_0 does not match POSITION")
                    }
                    for e in 0..<count {
                        let at = e * c.components
                        colors.append(SIMD3(sRGBByte(linear: c.values[at]), sRGBByte(linear: c.values[at + 1]),
                                            sRGBByte(linear: c.values[at + 2])))
                    }
                } else {
                    colors += [SIMD3<UInt8>](repeating: grey, count: count)
                }
                if let texcoord = attributes["TEXCOORD_0"] {
                    let t = try read(texcoord)
                    guard t.components == 2, t.values.count / 2 == count else {
                        throw ModelStatsError(message: "\(name): TEXCOORD_0 does not match POSITION")
                    }
                    for e in 0..<count { uvs.append(SIMD2(Float(t.values[2 * e]), Float(1 - t.values[2 * e + 1]))) }
                } else {
                    allTextured = false
                    uvs += [SIMD2<Float>](repeating: .zero, count: count)
                }
                var textureIndex: Int?
                if let m = primitive["material"] as? Int, materials.indices.contains(m),
                   let pbr = materials[m]["pbrMetallicRoughness"] as? [String: Any],
                   let info = pbr["baseColorTexture"] as? [String: Any] {
                    textureIndex = info["index"] as? Int
                }
                if !textureIndices.contains(textureIndex) { textureIndices.append(textureIndex) }
                let material = Int32(textureIndices.firstIndex(of: textureIndex)!)
                let trianglesBefore = triangles.count
                defer { triangleMaterials += [Int32](repeating: material, count: triangles.count - trianglesBefore) }
                let elements: [Int32]
                if let indices = primitive["indices"] {
                    elements = try read(indices).values.map { Int32(clamping: Int(exactly: $0) ?? -1) }
                } else {
                    elements = (0..<Int32(count)).map { $0 }
                }
                for e in elements where e < 0 || Int(e) >= count {
                    throw ModelStatsError(message: "\(name): an index refers to a missing vertex")
                }
                switch mode {
                case 4:
                    for k in stride(from: 0, to: elements.count - elements.count % 3, by: 3) {
                        triangles.append(SIMD3(elements[k], elements[k + 1], elements[k + 2]) &+ base)
                    }
                case 5:
                    for k in 0..<max(0, elements.count - 2) {
                        let t = k % 2 == 0 ? SIMD3(elements[k], elements[k + 1], elements[k + 2])
                            : SIMD3(elements[k + 1], elements[k], elements[k + 2])
                        triangles.append(t &+ base)
                    }
                default:
                    for k in 1..<max(1, elements.count - 1) {
                        triangles.append(SIMD3(elements[0], elements[k], elements[k + 1]) &+ base)
                    }
                }
            }
        }
        // A primitive without a texture beside textured ones keeps the model's first texture, as before.
        let textured = textureIndices.compactMap { $0 }
        guard allTextured, !textured.isEmpty else {
            return try model(positions: positions, colors: colors, uvs: nil, triangles: triangles, texture: nil, name: name)
        }
        if textured.count == 1 {
            let texture = try glbTexture(json, binary: binary, index: textured[0], folder: folder, name: name)
            return try model(positions: positions, colors: colors, uvs: uvs, triangles: triangles, texture: texture, name: name)
        }
        let textures = try textureIndices.map { index in
            try index.flatMap { try glbTexture(json, binary: binary, index: $0, folder: folder, name: name) }
        }
        return try model(positions: positions, colors: colors, uvs: uvs, triangles: triangles, textures: textures,
                         materialOfTriangle: triangleMaterials, name: name)
    }

    /// The image of glTF texture `index`: from a buffer view of the binary chunk or a file beside
    /// the model.
    private static func glbTexture(_ json: [String: Any], binary: Data, index: Int, folder: URL,
                                   name: String) throws -> MeshMaterial.Texture? {
        let textures = json["textures"] as? [[String: Any]] ?? []
        let images = json["images"] as? [[String: Any]] ?? []
        let views = json["bufferViews"] as? [[String: Any]] ?? []
        guard textures.indices.contains(index), let source = textures[index]["source"] as? Int,
              images.indices.contains(source) else {
            throw ModelStatsError(message: "\(name): the material refers to a missing texture")
        }
        let image = images[source]
        let fileName = image["name"] as? String ?? "texture_0.png"
        if let v = image["bufferView"] as? Int {
            guard views.indices.contains(v) else { throw ModelStatsError(message: "\(name): an image refers to a missing buffer view") }
            let offset = views[v]["byteOffset"] as? Int ?? 0, length = views[v]["byteLength"] as? Int ?? 0
            guard offset >= 0, length > 0, offset + length <= binary.count else {
                throw ModelStatsError(message: "\(name): an image reaches past the binary chunk")
            }
            return texture(binary.subdata(in: (binary.startIndex + offset)..<(binary.startIndex + offset + length)), fileName: fileName)
        }
        if let uri = image["uri"] as? String, !uri.hasPrefix("data:"), !uri.contains("..") {
            let file = uri.removingPercentEncoding ?? uri
            guard let bytes = try? Data(contentsOf: folder.appendingPathComponent(file)) else {
                throw ModelStatsError(message: "\(name): the texture \(file) is missing")
            }
            return texture(bytes, fileName: (file as NSString).lastPathComponent)
        }
        throw ModelStatsError(message: "\(name): an image that is neither in the file nor beside it (data: URIs are not supported)")
    }
}
