import Foundation

/// Uncompressed ("stored") zip archives, as USDZ requires: written with every entry's data
/// starting at a multiple of 64 bytes (AR Quick Look maps the files in place), padding put in
/// the local header's extra field; and read back (names and data of stored entries).
enum StoredZip {
    /// One file of an archive.
    package struct Entry: Equatable {
        package var name: String
        package var data: Data
    }

    /// The alignment USDZ asks of each file's data.
    package static let alignment = 64

    /// The archive of `entries`, in order (the first is a USDZ package's root layer).
    package static func archive(_ entries: [Entry]) -> Data {
        var out = ByteBuffer(capacity: entries.reduce(1024) { $0 + $1.data.count + 200 })
        var central = ByteBuffer()
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = CRC32.checksum(entry.data)
            let offset = out.count
            // The data starts after the 30-byte header, the name and the extra field; the
            // extra field (one unknown-id block: id, size, zeros) pads it to the alignment.
            var padding = (alignment - (offset + 30 + name.count + 4) % alignment) % alignment
            let extraLength = 4 + padding
            out.append(UInt32(0x0403_4B50))
            out.append(UInt16(20))  // version needed: 2.0
            out.append(UInt16(0))   // flags
            out.append(UInt16(0))   // method: stored
            out.append(UInt16(0))   // time
            out.append(UInt16(0x21))  // date: 1980-01-01
            out.append(crc)
            out.append(UInt32(entry.data.count))
            out.append(UInt32(entry.data.count))
            out.append(UInt16(name.count))
            out.append(UInt16(extraLength))
            out.append(contentsOf: name)
            out.append(UInt16(0x1986))  // a private extra-field id, as Pixar's usdzip pads
            out.append(UInt16(padding))
            while padding > 0 { out.append(UInt8(0)); padding -= 1 }
            out.append(contentsOf: entry.data)

            central.append(UInt32(0x0201_4B50))
            central.append(UInt16(20))  // made by
            central.append(UInt16(20))  // needed
            central.append(UInt16(0))
            central.append(UInt16(0))
            central.append(UInt16(0))
            central.append(UInt16(0x21))
            central.append(crc)
            central.append(UInt32(entry.data.count))
            central.append(UInt32(entry.data.count))
            central.append(UInt16(name.count))
            central.append(UInt16(0))  // extra
            central.append(UInt16(0))  // comment
            central.append(UInt16(0))  // disk
            central.append(UInt16(0))  // internal attributes
            central.append(UInt32(0))  // external attributes
            central.append(UInt32(offset))
            central.append(contentsOf: name)
        }
        let centralOffset = out.count
        out.append(contentsOf: central.bytes)
        out.append(UInt32(0x0605_4B50))
        out.append(UInt16(0))
        out.append(UInt16(0))
        out.append(UInt16(entries.count))
        out.append(UInt16(entries.count))
        out.append(UInt32(central.count))
        out.append(UInt32(centralOffset))
        out.append(UInt16(0))
        return out.data
    }

    /// The entries of a zip archive (from its central directory).
    /// - Throws: ``ModelStatsError`` naming `name` when it is not a zip, is truncated, or an
    ///   entry is compressed (a USDZ package never is).
    package static func entries(of data: Data, name: String) throws -> [Entry] {
        let reader = ByteReader(data, name: name)
        // The end-of-central-directory record is in the last 22 + 65535 bytes.
        var end = -1
        var at = data.count - 22
        while at >= max(0, data.count - 22 - 65_535) {
            if try reader.u32(at) == 0x0605_4B50 { end = at; break }
            at -= 1
        }
        guard end >= 0 else { throw ModelStatsError(message: "\(name): not a zip archive (no end of central directory)") }
        let count = Int(try reader.u16(end + 10))
        var cursor = Int(try reader.u32(end + 16))
        var entries: [Entry] = []
        // Stored entries never share bytes, so together they fit in the archive: a directory
        // whose entries all point at one large file would otherwise copy it thousands of times.
        var stored = 0
        for _ in 0..<count {
            guard try reader.u32(cursor) == 0x0201_4B50 else {
                throw ModelStatsError(message: "\(name): damaged zip central directory")
            }
            let method = try reader.u16(cursor + 10)
            let size = Int(try reader.u32(cursor + 20))
            let nameLength = Int(try reader.u16(cursor + 28))
            let extraLength = Int(try reader.u16(cursor + 30))
            let commentLength = Int(try reader.u16(cursor + 32))
            let localOffset = Int(try reader.u32(cursor + 42))
            let entryName = String(decoding: try reader.bytes(cursor + 46, nameLength), as: UTF8.self)
            guard method == 0 else {
                throw ModelStatsError(message: "\(name): entry \(entryName) is compressed (USDZ packages are stored)")
            }
            guard try reader.u32(localOffset) == 0x0403_4B50 else {
                throw ModelStatsError(message: "\(name): damaged zip entry \(entryName)")
            }
            let dataOffset = localOffset + 30 + Int(try reader.u16(localOffset + 26)) + Int(try reader.u16(localOffset + 28))
            stored += size
            guard stored <= data.count else {
                throw ModelStatsError(message: "\(name): zip entries declare more bytes than the file's \(data.count) (entry \(entryName) overlaps others)")
            }
            entries.append(Entry(name: entryName, data: try reader.bytes(dataOffset, size)))
            cursor += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }
}

/// The CRC-32 of zip (polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            for byte in raw { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
