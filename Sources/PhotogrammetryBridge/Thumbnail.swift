import CVision
import Foundation

/// Small JPEG previews of capture images, made by the C++ core.
public enum Thumbnail {
    /// A JPEG preview of the image at `url`: upright, its longer side at most `maxSide`.
    ///
    /// The image is decoded with its EXIF orientation applied, area-downscaled (never upscaled)
    /// and encoded as JPEG. A JPEG input is decoded at a reduced scale where that loses nothing,
    /// so a preview of a 12 MP photo costs a fraction of a full decode.
    ///
    /// - Parameters:
    ///   - url: The image (JPEG, PNG, ...).
    ///   - maxSide: The longest side of the preview in pixels, 1...8192. Default 160.
    ///   - quality: JPEG quality, 1...100. Default 80.
    /// - Returns: The encoded JPEG bytes.
    /// - Throws: ``CVisionError`` naming the file when it cannot be read or decoded, or
    ///   ``CVisionError/Code/invalidArgument`` for a size or quality out of range.
    public static func jpeg(of url: URL, maxSide: Int = 160, quality: Int = 80) throws -> Data {
        guard (1...8192).contains(maxSide), (1...100).contains(quality) else {
            throw CVisionError(
                code: .invalidArgument,
                message: "Thumbnail: maxSide \(maxSide) must be in 1...8192 and quality \(quality) in 1...100")
        }
        var buffer: OpaquePointer?
        try check(cvis_make_thumbnail(url.path, Int32(maxSide), Int32(quality), &buffer))
        defer { cvis_buffer_destroy(buffer) }
        guard let bytes = cvis_buffer_data(buffer) else { return Data() }
        return Data(bytes: bytes, count: cvis_buffer_size(buffer))
    }
}
