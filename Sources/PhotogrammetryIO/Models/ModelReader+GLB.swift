import Foundation
import PhotogrammetryCore

/// glTF 2.0 binary: every triangle primitive's POSITION, COLOR_0 (linear, float or normalised
/// integers, VEC3 or VEC4), TEXCOORD_0 (glTF's v runs down the image: flipped to our v up) and
/// indices, concatenated; each primitive's `baseColorTexture` image (one material per distinct
/// texture: a multi-page atlas), from the binary chunk or a file beside the model; metres unless
/// `asset.extras` says the unit is unknown.
extension ModelReader {
    /// The JSON and binary chunks of a GLB file (``ModelStats`` reads the same), the lengths
    /// the header and the chunks declare checked against the file's size.
    static func glbChunks(_ data: Data, name: String) throws -> (json: [String: Any], binary: Data) {
        let reader = ByteReader(data, name: name)
        guard data.count >= 20, try reader.u32(0) == 0x4654_6C67 else {
            throw ModelStatsError(message: "\(name): not a glTF binary (no glTF magic)")
        }
        guard try reader.u32(4) == 2 else { throw ModelStatsError(message: "\(name): glTF version \(try reader.u32(4)), want 2") }
        let declaredLength = Int(try reader.u32(8))
        guard declaredLength <= data.count else {
            throw ModelStatsError(message: "\(name): truncated: the header declares \(declaredLength) bytes, the file has \(data.count)")
        }
        let jsonLength = Int(try reader.u32(12))
        guard try reader.u32(16) == 0x4E4F_534A else { throw ModelStatsError(message: "\(name): first chunk is not JSON") }
        guard ModelCheck.fits(offset: 20, length: jsonLength, within: data.count) else {
            throw ModelStatsError(message: "\(name): truncated: the JSON chunk declares \(jsonLength) bytes, the file has \(data.count - 20) after the header")
        }
        let jsonData = try reader.bytes(20, jsonLength)
        var binary = Data()
        let binStart = 20 + jsonLength
        if binStart + 8 <= data.count, try reader.u32(binStart + 4) == 0x004E_4942 {
            let binaryLength = Int(try reader.u32(binStart))
            guard ModelCheck.fits(offset: binStart + 8, length: binaryLength, within: data.count) else {
                throw ModelStatsError(message: "\(name): truncated: the binary chunk declares \(binaryLength) bytes, the file has \(data.count - binStart - 8) after its header")
            }
            binary = try reader.bytes(binStart + 8, binaryLength)
        }
        guard let json = try? JSONSerialization.jsonObject(with: jsonData) as? [String: Any] else {
            throw ModelStatsError(message: "\(name): the JSON chunk is not a JSON object")
        }
        return (json, binary)
    }

    /// A GLB file's accessors, read from its binary chunk only after every declared count,
    /// offset and stride has been checked against the buffer view that holds them, and every
    /// buffer view against the chunk.
    struct GLBFile {
        package let json: [String: Any]
        let binary: Data
        package let name: String
        let accessors: [[String: Any]]
        package let views: [[String: Any]]

        package init(_ data: Data, name: String) throws {
            (json, binary) = try ModelReader.glbChunks(data, name: name)
            self.name = name
            accessors = json["accessors"] as? [[String: Any]] ?? []
            views = json["bufferViews"] as? [[String: Any]] ?? []
            // Every view of the binary chunk lies within it, whether or not anything reads it.
            for v in views.indices where (views[v]["buffer"] as? Int ?? 0) == 0 { _ = try view(v, of: "buffer view \(v)") }
        }

        /// The file's unit: glTF is metres, unless `asset.extras` says `"lengthUnit": "unknown"`.
        package var lengthUnit: LengthUnit {
            let extras = (json["asset"] as? [String: Any])?["extras"] as? [String: Any]
            return LengthUnit(metricFormatValue: extras?[LengthUnit.metadataKey] as? String)
        }

        /// The bytes of buffer view `v`: its offset and length, inside the binary chunk.
        package func view(_ v: Any?, of owner: String) throws -> (offset: Int, length: Int, stride: Int?) {
            guard let v = v as? Int, views.indices.contains(v) else {
                throw ModelStatsError(message: "\(name): \(owner) has no buffer view (sparse accessors are not supported)")
            }
            let view = views[v]
            guard (view["buffer"] as? Int ?? 0) == 0 else {
                throw ModelStatsError(message: "\(name): buffer view \(v) reads an external buffer (not supported)")
            }
            guard let length = view["byteLength"] as? Int, let offset = view["byteOffset"] as? Int ?? (view["byteOffset"] == nil ? 0 : nil),
                  ModelCheck.fits(offset: offset, length: length, within: binary.count) else {
                let length = view["byteLength"].map { "\($0)" } ?? "no", offset = view["byteOffset"].map { "\($0)" } ?? "0"
                throw ModelStatsError(message: "\(name): buffer view \(v) (\(length) bytes at \(offset)) does not lie within the binary chunk of \(binary.count) bytes")
            }
            let stride = view["byteStride"] as? Int
            if let stride, stride < 0 {
                throw ModelStatsError(message: "\(name): buffer view \(v) has a negative byteStride \(stride)")
            }
            return (offset, length, stride)
        }

        /// Accessor `index`'s elements as doubles (exact for 32-bit integers; normalised
        /// integers scaled to 0...1 or -1...1), `components` per element.
        /// - Throws: when the accessor is missing or of an unsupported type, or its count,
        ///   offset and stride reach past its buffer view, naming both.
        package func values(_ index: Any?, role: String) throws -> (values: [Double], components: Int, accessor: Int) {
            guard let i = index as? Int, accessors.indices.contains(i) else {
                throw ModelStatsError(message: "\(name): a primitive's \(role) refers to a missing accessor")
            }
            let accessor = accessors[i]
            let typeName = accessor["type"] as? String ?? ""
            let components = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4][typeName] ?? 0
            let type = accessor["componentType"] as? Int ?? 0
            let size = [5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4][type] ?? 0
            guard components > 0, size > 0 else {
                throw ModelStatsError(message: "\(name): accessor \(i) has an unsupported type")
            }
            guard let count = accessor["count"] as? Int, count >= 0 else {
                throw ModelStatsError(message: "\(name): accessor \(i) has no valid count (\(accessor["count"].map { "\($0)" } ?? "none"))")
            }
            let view = try self.view(accessor["bufferView"], of: "accessor \(i)")
            let elementSize = components * size
            let stride = max(view.stride ?? 0, elementSize)
            let offset = accessor["byteOffset"] as? Int ?? (accessor["byteOffset"] == nil ? 0 : -1)
            let componentName = [5120: "bytes", 5121: "unsigned bytes", 5122: "shorts", 5123: "unsigned shorts",
                                 5125: "unsigned ints", 5126: "floats"][type]!
            guard offset >= 0, let end = ModelCheck.span(count: count, elementSize: elementSize, stride: stride, offset: offset),
                  end <= view.length else {
                let at = offset > 0 ? " from byte \(offset)" : offset < 0 ? " from a bad byteOffset" : ""
                throw ModelStatsError(message: "\(name): accessor \(i) claims \(count) \(typeName) \(componentName)\(at) but its buffer view holds \(view.length) bytes")
            }
            let start = view.offset + offset
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
            return (values, components, i)
        }

        /// A primitive's positions (finite, x y z per vertex) and its element indices (each
        /// naming one of those vertices; nil when it has none: the vertices in order).
        package func geometry(of primitive: [String: Any]) throws -> (positions: [Double], indices: [Int]?, accessor: Int) {
            let attributes = primitive["attributes"] as? [String: Any] ?? [:]
            let p = try values(attributes["POSITION"], role: "POSITION")
            guard p.components == 3 else { throw ModelStatsError(message: "\(name): POSITION accessor \(p.accessor) is not VEC3") }
            try ModelCheck.requireFinite(p.values, components: 3, name: name, what: "coordinate") {
                "accessor \(p.accessor) (POSITION): vertex \($0)"
            }
            let count = p.values.count / 3
            guard let indexAccessor = primitive["indices"] else { return (p.values, nil, p.accessor) }
            let read = try values(indexAccessor, role: "indices")
            var indices: [Int] = []
            indices.reserveCapacity(read.values.count)
            for (e, value) in read.values.enumerated() {
                let index = Int(exactly: value) ?? -1
                try ModelCheck.requireIndex(index, count: count, name: name, referrer: "accessor \(read.accessor) (indices) element \(e)",
                                            target: "vertex")
                indices.append(index)
            }
            return (p.values, indices, p.accessor)
        }

        /// The bytes of image `index` when it lies in a buffer view, nil when it does not.
        func imageBytes(_ image: [String: Any], index: Int) throws -> Data? {
            guard let v = image["bufferView"] else { return nil }
            let view = try self.view(v, of: "image \(index)")
            return binary.subdata(in: (binary.startIndex + view.offset)..<(binary.startIndex + view.offset + view.length))
        }
    }

    package static func glb(_ data: Data, name: String, folder: URL) throws -> MeshModel {
        let file = try GLBFile(data, name: name)
        var surface = try glbSurface(file, folder: folder)
        surface.lengthUnit = file.lengthUnit
        return surface
    }

    /// The surface of every triangle primitive.
    private static func glbSurface(_ file: GLBFile, folder: URL) throws -> MeshModel {
        let name = file.name
        let json = file.json

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
                let base = Int32(clamping: positions.count)
                let geometry = try file.geometry(of: primitive)
                let p = geometry.positions
                let count = p.count / 3
                guard positions.count + count <= Int(Int32.max) else {
                    throw ModelStatsError(message: "\(name): more than \(Int32.max) vertices")
                }
                for e in 0..<count { positions.append(SIMD3(Float(p[3 * e]), Float(p[3 * e + 1]), Float(p[3 * e + 2]))) }
                if let color = attributes["COLOR_0"] {
                    let c = try file.values(color, role: "COLOR_0")
                    guard c.components >= 3, c.values.count / c.components == count else {
                        throw ModelStatsError(message: "\(name): COLOR_0 does not match POSITION")
                    }
                    try ModelCheck.requireFinite(c.values, components: c.components, name: name, what: "colour") {
                        "accessor \(c.accessor) (COLOR_0): vertex \($0)"
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
                    let t = try file.values(texcoord, role: "TEXCOORD_0")
                    guard t.components == 2, t.values.count / 2 == count else {
                        throw ModelStatsError(message: "\(name): TEXCOORD_0 does not match POSITION")
                    }
                    try ModelCheck.requireFinite(t.values, components: 2, name: name, what: "texture coordinate") {
                        "accessor \(t.accessor) (TEXCOORD_0): vertex \($0)"
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
                // In range (checked above), so each fits an Int32 as the vertex count does.
                let elements = geometry.indices.map { $0.map { Int32($0) } } ?? (0..<Int32(count)).map { $0 }
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
            let texture = try glbTexture(file, index: textured[0], folder: folder)
            return try model(positions: positions, colors: colors, uvs: uvs, triangles: triangles, texture: texture, name: name)
        }
        let textures = try textureIndices.map { index in
            try index.flatMap { try glbTexture(file, index: $0, folder: folder) }
        }
        return try model(positions: positions, colors: colors, uvs: uvs, triangles: triangles, textures: textures,
                         materialOfTriangle: triangleMaterials, name: name)
    }

    /// The image of glTF texture `index`: from a buffer view of the binary chunk or a file beside
    /// the model.
    private static func glbTexture(_ file: GLBFile, index: Int, folder: URL) throws -> MeshMaterial.Texture? {
        let name = file.name
        let textures = file.json["textures"] as? [[String: Any]] ?? []
        let images = file.json["images"] as? [[String: Any]] ?? []
        guard textures.indices.contains(index), let source = textures[index]["source"] as? Int,
              images.indices.contains(source) else {
            throw ModelStatsError(message: "\(name): the material refers to a missing texture")
        }
        let image = images[source]
        let fileName = image["name"] as? String ?? "texture_0.png"
        if let bytes = try file.imageBytes(image, index: source) {
            guard !bytes.isEmpty else { throw ModelStatsError(message: "\(name): image \(source) is empty") }
            return texture(bytes, fileName: fileName)
        }
        if let uri = image["uri"] as? String, !uri.hasPrefix("data:"), !uri.contains("..") {
            let file = uri.removingPercentEncoding ?? uri
            guard let bytes = RegularFile.contentsIfReadable(folder.appendingPathComponent(file)) else {
                throw ModelStatsError(message: "\(name): the texture \(file) is missing")
            }
            return texture(bytes, fileName: (file as NSString).lastPathComponent)
        }
        throw ModelStatsError(message: "\(name): an image that is neither in the file nor beside it (data: URIs are not supported)")
    }
}
