import Foundation

extension TestPNG {
    /// Writes an RGBA image (`pixels` row-major, width * height entries) to `url`.
    package static func writeRGBA(_ pixels: [SIMD4<UInt8>], width: Int, height: Int, to url: URL) throws {
        precondition(pixels.count == width * height, "one pixel per position")
        let raw = rows(width: width, height: height, channels: 4) { x, y in
            let p = pixels[y * width + x]
            return [p.x, p.y, p.z, p.w]
        }
        try encoded(raw, width: width, height: height, colorType: 6).write(to: url)
    }

    /// An 8-bit, non-interlaced PNG decoded (by python3's zlib, with PNG's five row filters):
    /// size, samples per pixel (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA) and the samples row-major.
    package struct Decoded {
        package var width: Int
        package var height: Int
        package var channels: Int
        package var samples: [UInt8]

        /// Sample `channel` of pixel (x, y).
        package func sample(x: Int, y: Int, channel: Int) -> UInt8 { samples[(y * width + x) * channels + channel] }
    }

    /// Decodes the PNG at `url` (see ``Decoded``).
    package static func read(_ url: URL) throws -> Decoded {
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("pg-png-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        try runBridgeTestPython("""
            import struct, zlib, sys
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            pos, idat = 8, b''
            while pos < len(data):
                n, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + n]
                if kind == b'IHDR':
                    w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
                elif kind == b'IDAT':
                    idat += body
                pos += 12 + n
            assert depth == 8 and interlace == 0 and ctype in (0, 2, 4, 6)
            c = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
            flat, stride, out, prev = zlib.decompress(idat), w * c, bytearray(), bytearray(w * c)
            for y in range(h):
                f, row = flat[y * (stride + 1)], bytearray(flat[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
                for i in range(stride):
                    a = row[i - c] if i >= c else 0
                    b = prev[i]
                    d = prev[i - c] if i >= c else 0
                    if f == 1: row[i] = (row[i] + a) & 255
                    elif f == 2: row[i] = (row[i] + b) & 255
                    elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
                    elif f == 4:
                        p = a + b - d
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - d)
                        row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else d)) & 255
                out += row
                prev = row
            open(sys.argv[2], 'wb').write(struct.pack('<III', w, h, c) + bytes(out))
            """, arguments: [url.path, raw.path])
        let bytes = [UInt8](try Data(contentsOf: raw))
        func int(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        return Decoded(width: int(0), height: int(4), channels: int(8), samples: Array(bytes[12...]))
    }
}
