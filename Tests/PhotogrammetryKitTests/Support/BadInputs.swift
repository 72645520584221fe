import Foundation
import XCTest
@testable import PhotogrammetryKit

/// The files a new user's capture can hold that no image reader should trust, built in a test's
/// temporary folder (never read from a shared data folder).
enum BadInputs {
    /// The repository's bundled capture, whose images are good.
    static let goodImages = EndToEndTests.datasets.appendingPathComponent("templeRing-12/images")

    /// Copies the first `count` good images (templeR0013.png, ...) into `folder`; returns their names.
    @discardableResult
    static func copyGoodImages(_ count: Int, to folder: URL) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: goodImages.path).sorted().prefix(count)
        for name in names {
            try FileManager.default.copyItem(at: goodImages.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return Array(names)
    }

    /// A complete JPEG of a good image (640 px), as a phone would write one.
    static func jpeg() throws -> Data {
        try Thumbnail.jpeg(of: goodImages.appendingPathComponent("templeR0013.png"), maxSide: 640, quality: 90)
    }

    /// Writes a JPEG cut off halfway, as an interrupted copy leaves it.
    static func writeTruncatedJPEG(to url: URL) throws {
        let data = try jpeg()
        try data.prefix(data.count / 2).write(to: url)
    }

    /// Writes an all-black 640 x 480 frame (a lens cap).
    static func writeBlackFrame(to url: URL) throws {
        try TestPNG.writeGrey([UInt8](repeating: 0, count: 640 * 480), width: 640, height: 480, to: url)
    }

    /// Writes a 1 x 1 image.
    static func writeTinyImage(to url: URL) throws {
        try TestPNG.writeGrey([128], width: 1, height: 1, to: url)
    }

    /// Creates a named pipe (which blocks whoever opens it for reading until a writer comes).
    static func makeFIFO(at url: URL) throws {
        guard mkfifo(url.path, 0o644) == 0 else {
            throw CVisionError(code: .ioError, message: "mkfifo \(url.path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a zip with python3's zipfile: entries of (name, file to store) and (name, bytes).
    static func writeZip(_ url: URL, files: [(String, URL)], data: [(String, Data)] = []) throws {
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
    static func python(_ text: String) -> String {
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
