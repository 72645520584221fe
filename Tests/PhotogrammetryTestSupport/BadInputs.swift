import Foundation
import XCTest
import PhotogrammetryCore
import PhotogrammetryBridge

/// The files a new user's capture can hold that no image reader should trust, built in a test's
/// temporary folder (never read from a shared data folder).
package enum BadInputs {
    /// The repository's bundled capture, whose images are good.
    package static let goodImages = Repository.datasets.appendingPathComponent("templeRing-12/images")

    /// Copies the first `count` good images (templeR0013.png, ...) into `folder`; returns their names.
    @discardableResult
    package static func copyGoodImages(_ count: Int, to folder: URL) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: goodImages.path).sorted().prefix(count)
        for name in names {
            try FileManager.default.copyItem(at: goodImages.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return Array(names)
    }

    /// A complete JPEG of a good image (640 px), as a phone would write one.
    package static func jpeg() throws -> Data {
        try Thumbnail.jpeg(of: goodImages.appendingPathComponent("templeR0013.png"), maxSide: 640, quality: 90)
    }

    /// Writes a JPEG cut off halfway, as an interrupted copy leaves it.
    package static func writeTruncatedJPEG(to url: URL) throws {
        let data = try jpeg()
        try data.prefix(data.count / 2).write(to: url)
    }

    /// Writes an all-black 640 x 480 frame (a lens cap).
    package static func writeBlackFrame(to url: URL) throws {
        try TestPNG.writeGrey([UInt8](repeating: 0, count: 640 * 480), width: 640, height: 480, to: url)
    }

    /// Writes a 1 x 1 image.
    package static func writeTinyImage(to url: URL) throws {
        try TestPNG.writeGrey([128], width: 1, height: 1, to: url)
    }

    /// Writes a complete JPEG of a good image (640 x 480, about 40 KB) whose start-of-frame
    /// header claims `width` x `height`: a decompression bomb (libjpeg would allocate the claimed
    /// size and fill what the data do not cover with grey).
    package static func writeHeaderBombJPEG(to url: URL, width: Int = 30000, height: Int = 30000) throws {
        var bytes = [UInt8](try jpeg())
        var i = 2
        while i + 9 < bytes.count {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                bytes[i + 5] = UInt8(height >> 8)
                bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8)
                bytes[i + 8] = UInt8(width & 0xFF)
                return try Data(bytes).write(to: url)
            }
            i += 2 + length
        }
        throw CVisionError(code: .internalError, message: "no start-of-frame in the test JPEG")
    }

    /// Writes a real, all-grey RGB PNG of `width` x `height` (30000² is 2.7 GB of pixels in a
    /// 3.2 MB file). Each row is deflated on its own behind a full flush, which empties the
    /// compressor's window, so the same bytes encode every row and writing takes a second.
    package static func writeHugePNG(to url: URL, width: Int = 30000, height: Int = 30000) throws {
        try runBridgeTestPython("""
            import struct, sys, zlib
            path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
            row = b'\\x00' + b'\\x80' * (3 * w)
            c = zlib.compressobj(9)
            segment = c.compress(row) + c.flush(zlib.Z_FULL_FLUSH)
            adler = 1
            for _ in range(h):
                adler = zlib.adler32(row, adler)
            def chunk(kind, data):
                return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
            idat = segment[:2] + segment[2:] * h + b'\\x03\\x00' + struct.pack('>I', adler)
            with open(path, 'wb') as f:
                f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)))
                f.write(chunk(b'IDAT', idat) + chunk(b'IEND', b''))
            """, arguments: [url.path, "\(width)", "\(height)"])
    }

    /// Writes a JPEG whose scan stops halfway but which ends with its end-of-image marker: whole
    /// to a walk of its markers, damaged to libjpeg ("Corrupt JPEG data: premature end of data
    /// segment", the lower half grey).
    package static func writeDamagedJPEG(to url: URL) throws {
        let data = try jpeg()
        try (data.prefix(data.count / 2) + Data([0xFF, 0xD9])).write(to: url)
    }

    /// Writes a good image as PNG with one bit of its image data flipped: its chunks are whole,
    /// libpng refuses it ("IDAT: CRC error").
    package static func writeCRCErrorPNG(to url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: goodImages.appendingPathComponent("templeR0013.png")))
        let idat = [UInt8]("IDAT".utf8)
        guard let at = (8..<(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == idat }) else {
            throw CVisionError(code: .internalError, message: "no IDAT in the test PNG")
        }
        bytes[at + 100] ^= 0x01
        try Data(bytes).write(to: url)
    }

    /// Creates a named pipe (which blocks whoever opens it for reading until a writer comes).
    package static func makeFIFO(at url: URL) throws {
        guard mkfifo(url.path, 0o644) == 0 else {
            throw CVisionError(code: .ioError, message: "mkfifo \(url.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a zip with python3's zipfile: entries of (name, file to store) and (name, bytes).
    package static func writeZip(_ url: URL, files: [(String, URL)], data: [(String, Data)] = []) throws {
        let folder = url.deletingLastPathComponent().appendingPathComponent(".zip-parts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines: [String] = []
        for (k, (name, bytes)) in data.enumerated() {
            let part = folder.appendingPathComponent("\(k)")
            try bytes.write(to: part)
            lines.append(python(name) + ", " + python(part.path))
        }
        lines += files.map { python($0.0) + ", " + python($0.1.path) }
        try runBridgeTestPython("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for name, path in [\(lines.map { "(\($0))" }.joined(separator: ", "))]:
                    z.write(path, name)
            """, arguments: [url.path])
    }

    /// A Python string literal of `text` (escapes, including line breaks).
    package static func python(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }
}
