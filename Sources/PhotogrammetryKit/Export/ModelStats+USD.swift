import Foundation

/// USD: a USDZ package's root layer (the first file in it, as the USDZ spec says), or a
/// `.usda` file. Text layers only; a binary (usdc) layer is named as unsupported.
extension ModelStats {
    static func usdz(_ data: Data, name: String) throws -> ModelStats {
        let entries = try StoredZip.entries(of: data, name: name)
        guard let root = entries.first else { throw ModelStatsError(message: "\(name): empty USDZ package") }
        let textures = entries.dropFirst()
            .filter { ["png", "jpg", "jpeg"].contains(($0.name as NSString).pathExtension.lowercased()) }
            .map { imageSize($0.data) ?? TextureSize(width: 0, height: 0) }
        return try usda(root.data, name: "\(name): \(root.name)", textures: textures, file: name)
    }

    /// Sums the Mesh prims' `points` and `faceVertexCounts` of a text layer.
    static func usda(_ data: Data, name: String, textures: [TextureSize], file: String? = nil) throws -> ModelStats {
        if data.starts(with: Array("PXR-USDC".utf8)) {
            throw ModelStatsError(message: "\(name): binary USD layer (usdc) is not supported; convert it to text (usda) with usdcat")
        }
        guard data.starts(with: Array("#usda".utf8)) else {
            throw ModelStatsError(message: "\(name): not a USD text layer (no #usda header)")
        }
        let bytes = [UInt8](data)
        var vertices = 0, triangles = 0
        var bounds: BoundingBox?
        for list in arrays(named: "points", ofType: "point3f[]", in: bytes) {
            let values = numbers(in: bytes[list])
            guard values.count % 3 == 0 else { throw ModelStatsError(message: "\(name): points are not triples") }
            vertices += values.count / 3
            for i in stride(from: 0, to: values.count, by: 3) {
                let p = SIMD3(values[i], values[i + 1], values[i + 2])
                bounds = bounds.map { BoundingBox(min: pointwiseMin($0.min, p), max: pointwiseMax($0.max, p)) }
                    ?? BoundingBox(min: p, max: p)
            }
        }
        for list in arrays(named: "faceVertexCounts", ofType: "int[]", in: bytes) {
            for count in numbers(in: bytes[list]) where count >= 3 { triangles += Int(count) - 2 }
        }
        let metersPerUnit = metadataNumber("metersPerUnit", in: bytes) ?? 0.01  // USD's default: centimetres
        return ModelStats(file: file ?? name, format: .usdz, vertices: vertices, triangles: triangles, bounds: bounds,
                          metersPerUnit: metersPerUnit, textures: textures, fileBytes: 0)
    }

    /// The byte ranges inside `[...]` of every attribute `type name = [`.
    static func arrays(named name: String, ofType type: String, in bytes: [UInt8]) -> [Range<Int>] {
        let needle = Array("\(type) \(name) = [".utf8)
        var ranges: [Range<Int>] = []
        var at = 0
        while let start = find(needle, in: bytes, from: at) {
            let open = start + needle.count
            var close = open
            while close < bytes.count, bytes[close] != UInt8(ascii: "]") { close += 1 }
            ranges.append(open..<close)
            at = close
        }
        return ranges
    }

    /// A number given in the layer's metadata block, e.g. `metersPerUnit = 0.01`.
    private static func metadataNumber(_ key: String, in bytes: [UInt8]) -> Double? {
        guard let start = find(Array("\(key) = ".utf8), in: bytes, from: 0) else { return nil }
        let tail = bytes[(start + key.count + 3)...].prefix { !$0.isWhitespace && $0 != UInt8(ascii: ")") }
        return Double(String(decoding: tail, as: UTF8.self))
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var i = from
        let first = needle[0]
        while i <= bytes.count - needle.count {
            if bytes[i] == first, bytes[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The numbers in a list such as `(1, 2.5, -3e-2), (...)`.
    static func numbers(in bytes: ArraySlice<UInt8>) -> [Double] {
        var values: [Double] = []
        var token: [UInt8] = []
        func flush() {
            if !token.isEmpty, let value = Double(String(decoding: token, as: UTF8.self)) { values.append(value) }
            token.removeAll(keepingCapacity: true)
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                token.append(byte)
            default:
                flush()
            }
        }
        flush()
        return values
    }
}

private extension UInt8 {
    var isWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
