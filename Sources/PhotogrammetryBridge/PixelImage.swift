import CVision
import Foundation

/// An 8-bit image in memory: `height` rows of `width` pixels of `channels` samples, top row
/// first (RGB, RGBA or grey). Decoded from PNG/JPEG bytes and written as PNG by the C++ core.
public struct PixelImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 1 (grey), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    /// Row-major samples, `width * height * channels` of them.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * channels, "one sample per pixel and channel")
        (self.width, self.height, self.channels, self.pixels) = (width, height, channels, pixels)
    }

    /// Decodes PNG or JPEG bytes (anything OpenCV reads) to RGB (`channels` 3) or RGBA (4).
    /// - Throws: ``CVisionError`` (`decodeError`) when the bytes are not a decodable image.
    public init(decoding data: Data, channels: Int = 3) throws {
        var handle: OpaquePointer?
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            try check(cvis_image_decode(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int32(channels), &handle))
        }
        self.init(taking: handle)
    }

    /// Decodes the image file at `url` (JPEG, PNG, HEIC...) upright, as the pipeline sees it, to
    /// RGB (`channels` 3) or RGBA (4; opaque when the file has no alpha).
    /// - Throws: ``CVisionError`` naming the file when it cannot be read or decoded.
    public init(contentsOf url: URL, channels: Int = 3) throws {
        var handle: OpaquePointer?
        try check(cvis_image_read(url.path, Int32(channels), &handle))
        self.init(taking: handle)
    }

    /// Copies the pixels of a decoded image handle and destroys it.
    private init(taking handle: OpaquePointer?) {
        defer { cvis_image_destroy(handle) }
        width = Int(cvis_image_width(handle))
        height = Int(cvis_image_height(handle))
        channels = Int(cvis_image_channels(handle))
        let count = width * height * channels
        pixels = cvis_image_pixels(handle).map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// The samples of pixel (x, y), x to the right and y down from the top-left pixel.
    public subscript(x: Int, y: Int) -> ArraySlice<UInt8> {
        let at = (y * width + x) * channels
        return pixels[at..<(at + channels)]
    }

    /// The image as PNG bytes.
    public func pngData() throws -> Data {
        var buffer: OpaquePointer?
        try check(cvis_image_encode_png(Int32(width), Int32(height), Int32(channels), pixels, &buffer))
        defer { cvis_buffer_destroy(buffer) }
        return Data(bytes: cvis_buffer_data(buffer), count: cvis_buffer_size(buffer))
    }

    /// Writes the image as PNG through a temporary name in the same folder and a rename.
    /// - Throws: ``CVisionError`` naming the file when it cannot be written.
    public func writePNG(to url: URL) throws {
        try check(cvis_image_write_png(url.path, Int32(width), Int32(height), Int32(channels), pixels))
    }
}
