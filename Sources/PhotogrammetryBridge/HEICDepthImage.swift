import CVision
import Foundation

/// The depth image a HEIC photo can carry (an auxiliary item beside the primary image), with what
/// its samples mean.
///
/// Read only: the pipeline does not use it yet (metric scaling comes later). Samples are mapped by
/// the file's depth representation info (an HEVC SEI in the item's `auxC` property) when it gives
/// a uniform representation and both its bounds; otherwise they stay normalised to 0...1.
///
/// The pixels are those of the depth item with its own transformations applied (HEIF gives each
/// item its own `irot`/`imir`), not the photo's: a writer that rotates only the photo leaves the
/// depth map in the sensor's frame, so compare the aspect ratios before overlaying the two.
public struct HEICDepthImage: Sendable, Equatable {
    /// What the depth samples encode, as the file's depth representation info says.
    public enum Representation: Int32, Sendable {
        case uniformInverseZ = 0, uniformDisparity = 1, uniformZ = 2, nonuniformDisparity = 3
    }

    /// What ``values`` hold.
    public enum Values: Int32, Sendable {
        /// The coded samples scaled to 0...1 (no representation info, or a non-uniform one).
        case normalized = 0
        /// Distance along the optical axis, in the file's units (those of `zNear`, `zFar`).
        case depth = 1
        /// Disparity, in the file's units (those of `dMin`, `dMax`).
        case disparity = 2
    }

    /// Width in pixels (the depth item's own size, usually smaller than the photo).
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bits per coded sample (8, 10, 16...).
    public let bitDepth: Int
    /// The representation the file declares, nil when it declares none.
    public let representation: Representation?
    /// The nearest and farthest depth the samples span, where the file gives them.
    public let zNear: Double?, zFar: Double?
    /// The smallest and largest disparity the samples span, where the file gives them.
    public let dMin: Double?, dMax: Double?
    /// What ``samples`` hold.
    public let values: Values
    /// `width * height` values, row-major from the top-left pixel.
    public let samples: [Float]

    /// The value at pixel (x, y), x to the right and y down from the top-left pixel.
    public subscript(x: Int, y: Int) -> Float { samples[y * width + x] }

    /// Reads the depth image of the HEIC/HEIF file at `url`; nil when the file has none.
    /// - Throws: ``CVisionError`` naming the file when it is not a readable HEIF file.
    public static func read(from url: URL) throws -> HEICDepthImage? {
        var info = cvis_heic_depth_info()
        var buffer: OpaquePointer?
        try check(cvis_read_heic_depth(url.path, &info, &buffer))
        defer { cvis_buffer_destroy(buffer) }
        guard info.width > 0, let bytes = cvis_buffer_data(buffer) else { return nil }
        let count = Int(info.width) * Int(info.height)
        precondition(cvis_buffer_size(buffer) == count * MemoryLayout<Float>.size, "one float per depth pixel")
        let samples = UnsafeRawPointer(bytes).withMemoryRebound(to: Float.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
        return HEICDepthImage(
            width: Int(info.width), height: Int(info.height), bitDepth: Int(info.bit_depth),
            representation: Representation(rawValue: info.representation),
            zNear: info.has_z_near != 0 ? info.z_near : nil, zFar: info.has_z_far != 0 ? info.z_far : nil,
            dMin: info.has_d_min != 0 ? info.d_min : nil, dMax: info.has_d_max != 0 ? info.d_max : nil,
            values: Values(rawValue: info.values) ?? .normalized, samples: samples)
    }
}
