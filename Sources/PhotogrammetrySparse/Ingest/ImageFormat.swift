import Foundation

/// The image formats the tool recognises, told apart by their first bytes, not their names.
///
/// This is the decoder seam: a format is listed here once its decoder exists in the core
/// (`isDecodable`). HEIC/HEIF decodes through libheif, with the file's own rotation and mirroring
/// (`irot`/`imir`) applied and its EXIF orientation ignored, as the HEIF standard asks.
public enum ImageFormat: String, Sendable {
    case jpeg, png, heic, pgm

    /// File name extensions that mark a file as an image to ingest (lower case).
    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif", "pgm"]

    /// Whether the core can decode this format today (all of them).
    public var isDecodable: Bool { true }

    /// Identifies the format from a file's first bytes; nil when it is none of ours.
    public static func sniff(_ url: URL) -> ImageFormat? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 16), head.count >= 4 else { return nil }
        let b = [UInt8](head)
        if b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF { return .jpeg }
        if b[0] == 0x89 && b[1] == 0x50 && b[2] == 0x4E && b[3] == 0x47 { return .png }
        if b[0] == 0x50 && (b[1] == 0x35 || b[1] == 0x32) { return .pgm }
        if b.count >= 12 && String(decoding: b[4..<8], as: UTF8.self) == "ftyp" {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
        }
        return nil
    }
}
