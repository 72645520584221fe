import CVision
import Foundation

/// A depth image stored as a single-channel PNG (as capture tools write LiDAR or rendered depth:
/// 16-bit, millimetres, 0 = no depth), its samples as coded.
public struct DepthPNG: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bits per sample (8 or 16).
    public let bitDepth: Int
    /// `width * height` coded values, unscaled, row-major from the top-left pixel.
    public let samples: [Float]

    /// Reads the PNG at `url` as stored (no orientation applied).
    /// - Throws: ``CVisionError`` naming the file when it cannot be decoded or has several channels.
    public static func read(from url: URL) throws -> DepthPNG {
        var width: Int32 = 0, height: Int32 = 0, bits: Int32 = 0
        var buffer: OpaquePointer?
        try check(cvis_read_depth_png(url.path, &width, &height, &bits, &buffer))
        defer { cvis_buffer_destroy(buffer) }
        let count = Int(width) * Int(height)
        guard count > 0, let bytes = cvis_buffer_data(buffer) else {
            return DepthPNG(width: 0, height: 0, bitDepth: Int(bits), samples: [])
        }
        precondition(cvis_buffer_size(buffer) == count * MemoryLayout<Float>.size, "one float per depth pixel")
        let samples = UnsafeRawPointer(bytes).withMemoryRebound(to: Float.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
        return DepthPNG(width: Int(width), height: Int(height), bitDepth: Int(bits), samples: samples)
    }
}
