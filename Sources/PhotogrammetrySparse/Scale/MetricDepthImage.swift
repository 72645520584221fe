import Foundation
import PhotogrammetryBridge

/// A depth image in metres, in the frame of its photo (possibly smaller: an iPhone's LiDAR depth
/// is a quarter of the photo per side), sampled at the photo's keypoints.
///
/// A sample is distance along the optical axis (camera z); 0 or a non-finite value means no
/// depth there.
public struct MetricDepthImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height` depths in metres, row-major from the top-left pixel.
    public let metres: [Float]
    /// ARKit's confidence per pixel (0 low, 1 medium, 2 high), when the capture has it: the dense
    /// stage drops low-confidence depth (scale estimation takes every pixel).
    public var confidence: [UInt8]?

    public init(width: Int, height: Int, metres: [Float]) {
        precondition(metres.count == width * height, "one depth per pixel")
        self.width = width
        self.height = height
        self.metres = metres
    }

    /// A 16-bit depth PNG in millimetres (0 = no depth), as `depth/` folders hold them.
    public init(millimetres png: DepthPNG) {
        self.init(width: png.width, height: png.height, metres: png.samples.map { $0 / 1000 })
    }

    /// The depth image a HEIC carries, in metres; throws ``Unusable`` when its samples have no
    /// metric meaning (no depth representation info, a non-uniform one, or no range).
    ///
    /// Depth (uniform Z or inverse Z with z_near, z_far) is taken as metres, the unit Apple's
    /// depth data uses; disparity (uniform, with d_min, d_max) as inverse metres, so depth = 1 / d.
    public init(heic depth: HEICDepthImage) throws {
        switch depth.values {
        case .depth:
            self.init(width: depth.width, height: depth.height, metres: depth.samples)
        case .disparity:
            self.init(width: depth.width, height: depth.height,
                      metres: depth.samples.map { $0 > 0 && $0.isFinite ? 1 / $0 : 0 })
        case .normalized:
            let kind = depth.representation.map { "\($0)" } ?? "none"
            throw Unusable(reason: "depth image without a metric range (representation \(kind), "
                           + "no z_near/z_far or d_min/d_max): it cannot give scale")
        }
    }

    /// Why a depth image cannot be used.
    public struct Unusable: Error, Equatable {
        public var reason: String
    }

    /// Whether this depth image is in the frame of a `width` x `height` photo: the same aspect
    /// ratio within 2 % (a depth map left in the sensor's frame of a rotated photo is not).
    public func matches(imageWidth: Int, imageHeight: Int) -> Bool {
        guard width > 1, height > 1, imageWidth > 0, imageHeight > 0 else { return false }
        let a = Double(width) / Double(height), b = Double(imageWidth) / Double(imageHeight)
        return abs(a / b - 1) <= 0.02
    }

    /// The depth at a photo pixel, bilinear between the four nearest depth pixels; nil where a
    /// pixel of the 3x3 neighbourhood of the nearest one has no depth, or where depths there
    /// differ by more than `maxRelativeJump` of the smallest (an occlusion edge, where a
    /// keypoint's depth is either side's).
    /// - Parameters:
    ///   - pixel: In the photo's pixels, COLMAP's convention (top-left corner at 0, 0).
    ///   - imageWidth, imageHeight: The photo's size; the depth image covers the same field.
    public func depth(at pixel: SIMD2<Double>, imageWidth: Int, imageHeight: Int, maxRelativeJump: Double) -> Double? {
        let u = pixel.x * Double(width) / Double(imageWidth) - 0.5
        let v = pixel.y * Double(height) / Double(imageHeight) - 0.5
        guard u >= -0.5, v >= -0.5, u <= Double(width) - 0.5, v <= Double(height) - 0.5 else { return nil }
        let nx = min(max(Int(u.rounded()), 0), width - 1), ny = min(max(Int(v.rounded()), 0), height - 1)
        var lowest = Float.infinity, highest: Float = 0
        for y in max(ny - 1, 0)...min(ny + 1, height - 1) {
            for x in max(nx - 1, 0)...min(nx + 1, width - 1) {
                let d = metres[y * width + x]
                guard d > 0, d.isFinite else { return nil }
                lowest = min(lowest, d)
                highest = max(highest, d)
            }
        }
        guard Double(highest) <= Double(lowest) * (1 + maxRelativeJump) else { return nil }
        let cu = min(max(u, 0), Double(width - 1)), cv = min(max(v, 0), Double(height - 1))
        let x0 = min(Int(cu), max(width - 2, 0)), y0 = min(Int(cv), max(height - 2, 0))
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = cu - Double(x0), fy = cv - Double(y0)
        let d00 = Double(metres[y0 * width + x0]), d10 = Double(metres[y0 * width + x1])
        let d01 = Double(metres[y1 * width + x0]), d11 = Double(metres[y1 * width + x1])
        guard d00 > 0, d10 > 0, d01 > 0, d11 > 0 else { return nil }
        return (d00 * (1 - fx) + d10 * fx) * (1 - fy) + (d01 * (1 - fx) + d11 * fx) * fy
    }
}
