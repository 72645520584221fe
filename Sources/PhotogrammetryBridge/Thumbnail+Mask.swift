import CVision
import Foundation

extension Thumbnail {
    /// A JPEG preview of the image at `url` with the mask at `mask` shown (the background dimmed
    /// and tinted, the mask's outline drawn), its longer side at most `maxSide`.
    /// - Throws: ``CVisionError`` naming the image or mask that cannot be read.
    public static func maskedJPEG(of url: URL, mask: URL, maxSide: Int = 240, quality: Int = 80) throws -> Data {
        var buffer: OpaquePointer?
        try check(cvis_make_masked_thumbnail(url.path, mask.path, Int32(clamping: maxSide), Int32(clamping: quality), &buffer))
        defer { cvis_buffer_destroy(buffer) }
        guard let bytes = cvis_buffer_data(buffer) else { return Data() }
        return Data(bytes: bytes, count: cvis_buffer_size(buffer))
    }
}
