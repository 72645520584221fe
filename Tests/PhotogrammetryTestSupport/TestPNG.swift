import Foundation

/// Writes small 8-bit PNG files for tests without an image library: zlib "stored" (uncompressed)
/// blocks, so the encoder is a few lines; fine for the tiny images tests render.
package enum TestPNG {
    /// Writes an RGB image (`pixels` row-major, width * height entries) to `url`.
    package static func writeRGB(_ pixels: [SIMD3<UInt8>], width: Int, height: Int, to url: URL) throws {
        precondition(pixels.count == width * height, "one pixel per position")
        let raw = rows(width: width, height: height, channels: 3) { x, y in
            let p = pixels[y * width + x]
            return [p.x, p.y, p.z]
        }
        try encoded(raw, width: width, height: height, colorType: 2).write(to: url)
    }

    /// PNG scanlines (each with filter "none") of `channels` samples per pixel.
    package static func rows(width: Int, height: Int, channels: Int, _ samples: (Int, Int) -> [UInt8]) -> [UInt8] {
        var raw = [UInt8]()
        raw.reserveCapacity(height * (1 + channels * width))
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width { raw += samples(x, y) }
        }
        return raw
    }

    /// Writes an 8-bit grey image (`pixels` row-major) to `url`.
    package static func writeGrey(_ pixels: [UInt8], width: Int, height: Int, to url: URL) throws {
        precondition(pixels.count == width * height, "one pixel per position")
        var raw = [UInt8]()
        for y in 0..<height { raw.append(0); raw += pixels[(y * width)..<((y + 1) * width)] }
        try encoded(raw, width: width, height: height, colorType: 0).write(to: url)
    }

    /// A 16-bit grey PNG (depth in millimetres, as `depth/` folders hold them), big-endian samples.
    package static func writeGrey16(_ samples: [UInt16], width: Int, height: Int, to url: URL) throws {
        precondition(samples.count == width * height, "one sample per position")
        var raw = [UInt8]()
        raw.reserveCapacity(height * (2 * width + 1))
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width {
                let v = samples[y * width + x]
                raw.append(UInt8(v >> 8))
                raw.append(UInt8(v & 0xFF))
            }
        }
        try encoded(raw, width: width, height: height, colorType: 0, bitDepth: 16).write(to: url)
    }

    package static func encoded(_ raw: [UInt8], width: Int, height: Int, colorType: UInt8, bitDepth: UInt8 = 8) -> Data {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [bitDepth, colorType, 0, 0, 0]
        png += chunk("IHDR", header)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> Data {
        let body = Array(type.utf8) + data
        return Data(bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body)))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
