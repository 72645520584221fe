import Foundation
import PhotogrammetryCore

/// USD: a USDZ package's root layer (the first file in it, as the USDZ spec says), or a
/// `.usda` file. Text layers only; a binary (usdc) layer is named as unsupported.
extension ModelStats {
    package static func usdz(_ data: Data, name: String) throws -> ModelStats {
        let entries = try StoredZip.entries(of: data, name: name)
        guard let root = entries.first else { throw ModelStatsError(message: "\(name): empty USDZ package") }
        let textures = entries.dropFirst()
            .filter { ["png", "jpg", "jpeg"].contains(($0.name as NSString).pathExtension.lowercased()) }
            .map { imageSize($0.data) ?? TextureSize(width: 0, height: 0) }
        return try usda(root.data, name: "\(name): \(root.name)", textures: textures, file: name)
    }

    /// Sums the Mesh prims' points and faces of a text layer, read and checked as the reader
    /// does (``ModelReader/usdMeshes(_:name:)``).
    package static func usda(_ data: Data, name: String, textures: [TextureSize], file: String? = nil) throws -> ModelStats {
        let bytes = try ModelReader.usdaBytes(data, name: name)
        var vertices = 0, triangles = 0
        var low = SIMD3<Double>(repeating: .infinity), high = -low
        for mesh in try ModelReader.usdMeshes(bytes, name: name) {
            vertices += mesh.pointCount
            for i in stride(from: 0, to: mesh.points.count, by: 3) {
                let p = SIMD3(Double(mesh.points[i]), Double(mesh.points[i + 1]), Double(mesh.points[i + 2]))
                low = pointwiseMin(low, p)
                high = pointwiseMax(high, p)
            }
            for count in mesh.counts where count >= 3 { triangles += count - 2 }
        }
        return ModelStats(file: file ?? name, format: .usdz, vertices: vertices, triangles: triangles,
                          bounds: vertices > 0 ? BoundingBox(min: low, max: high) : nil,
                          metersPerUnit: try usdUnit(bytes, name: name).metersPerUnit, textures: textures, fileBytes: 0)
    }

    /// A text layer's unit: ``LengthUnit/unknown`` (and no metres per unit) when its
    /// `customLayerData` says `lengthUnit = "unknown"`, else metres at its `metersPerUnit` (USD's
    /// default 0.01 when it has none).
    /// - Throws: when `metersPerUnit` is not a positive finite number.
    package static func usdUnit(_ bytes: [UInt8], name: String) throws -> (lengthUnit: LengthUnit, metersPerUnit: Double?) {
        let metersPerUnit = metadataNumber("metersPerUnit", in: bytes) ?? 0.01  // USD's default: centimetres
        guard metersPerUnit.isFinite, metersPerUnit > 0 else {
            throw ModelStatsError(message: "\(name): metersPerUnit \(metersPerUnit) is not a positive finite number")
        }
        let unit = LengthUnit(metricFormatValue: layerDataString(LengthUnit.metadataKey, in: bytes))
        return (unit, unit == .metres ? metersPerUnit : nil)
    }

    /// A string of the layer's metadata block (before its first prim), e.g. `customLayerData`'s
    /// `string lengthUnit = "unknown"`.
    private static func layerDataString(_ key: String, in bytes: [UInt8]) -> String? {
        let metadata = Array(bytes[..<(find(Array("\ndef ".utf8), in: bytes, from: 0) ?? bytes.count)])
        let needle = Array("\(key) = \"".utf8)
        guard let start = find(needle, in: metadata, from: 0) else { return nil }
        let tail = metadata[(start + needle.count)...].prefix { $0 != UInt8(ascii: "\"") && $0 != 0x0A }
        return String(decoding: tail, as: UTF8.self)
    }

    /// The byte ranges inside `[...]` of every attribute `type name = [`.
    package static func arrays(named name: String, ofType type: String, in bytes: [UInt8]) -> [Range<Int>] {
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
    static func metadataNumber(_ key: String, in bytes: [UInt8]) -> Double? {
        guard let start = find(Array("\(key) = ".utf8), in: bytes, from: 0) else { return nil }
        let tail = bytes[(start + key.count + 3)...].prefix { !$0.isWhitespace && $0 != UInt8(ascii: ")") }
        return Double(String(decoding: tail, as: UTF8.self))
    }

    package static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var i = from
        let first = needle[0]
        while i <= bytes.count - needle.count {
            if bytes[i] == first, bytes[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The numbers in a list such as `(1, 2.5, -3e-2), (...)`; `nan`, `inf` and `-inf` are
    /// numbers too (USD writes them so), for the readers to refuse by name.
    package static func numbers(in bytes: ArraySlice<UInt8>) -> [Double] {
        var values: [Double] = []
        var token: [UInt8] = []
        func flush() {
            if !token.isEmpty, let value = Double(String(decoding: token, as: UTF8.self)) { values.append(value) }
            token.removeAll(keepingCapacity: true)
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
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
