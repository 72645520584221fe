import Foundation

/// Bytes built up little-endian, for the binary exporters (GLB, PLY, STL, zip).
struct ByteBuffer {
    private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package var count: Int { bytes.count }

    package mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ value: Float) { append(value.bitPattern) }

    package mutating func append(_ vector: SIMD3<Float>) {
        append(vector.x)
        append(vector.y)
        append(vector.z)
    }

    package mutating func append<S: Sequence>(contentsOf sequence: S) where S.Element == UInt8 {
        bytes.append(contentsOf: sequence)
    }

    package mutating func append(_ text: String) { bytes.append(contentsOf: Array(text.utf8)) }

    /// Pads with `byte` to a multiple of `alignment`.
    mutating func pad(to alignment: Int, with byte: UInt8 = 0) {
        while bytes.count % alignment != 0 { bytes.append(byte) }
    }

    /// Overwrites a 32-bit value at `offset` (a size known only later).
    package mutating func set(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for k in 0..<4 { bytes[offset + k] = raw[k] }
        }
    }

    package var data: Data { Data(bytes) }
}

/// Reads little-endian values from bytes, for the readers of ``ModelStats``; every read is
/// bounds-checked and a short file is an error, not a crash.
struct ByteReader {
    package let data: Data
    package let name: String

    package init(_ data: Data, name: String) {
        self.data = data
        self.name = name
    }

    func u8(_ offset: Int) throws -> UInt8 {
        guard offset >= 0, offset < data.count else { throw short() }
        return data[data.startIndex + offset]
    }

    func u16(_ offset: Int) throws -> UInt16 { try integer(offset) }
    func u32(_ offset: Int) throws -> UInt32 { try integer(offset) }

    func f32(_ offset: Int) throws -> Float { Float(bitPattern: try u32(offset)) }

    package func bytes(_ offset: Int, _ count: Int) throws -> Data {
        guard offset >= 0, count >= 0, offset + count <= data.count else { throw short() }
        return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + offset + count))
    }

    private func integer<T: FixedWidthInteger>(_ offset: Int) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset + size <= data.count else { throw short() }
        var value: T = 0
        for k in 0..<size { value |= T(data[data.startIndex + offset + k]) << (8 * k) }
        return value
    }

    private func short() -> ModelStatsError { ModelStatsError(message: "\(name): truncated (ends early)") }
}
