import CVision
import Foundation
import PhotogrammetryCore

/// A square marker found in an image: its id and its four corners.
public struct DetectedMarker: Sendable, Equatable, Codable {
    /// The marker's id in its dictionary.
    public var id: Int
    /// The corners in image pixels (top-left image corner at 0, 0), in the marker's own order:
    /// top-left, top-right, bottom-right, bottom-left as printed.
    public var corners: [SIMD2<Double>]

    public init(id: Int, corners: [SIMD2<Double>]) {
        self.id = id
        self.corners = corners
    }
}

/// Detection of square markers (ArUco, AprilTag) with OpenCV's aruco module, corners refined to
/// sub-pixel precision.
public enum MarkerDetector {
    /// Options of the detection.
    public struct Options: Sendable, Equatable {
        /// Half-size of the sub-pixel corner refinement window, in pixels. Default 5.
        public var subpixelWindow = Int(CoreDefaults.markerDetection.subpixel_window)
        /// The smallest marker perimeter, as a fraction of the image's longer side. Default 0.01.
        public var minPerimeterRate = CoreDefaults.markerDetection.min_perimeter_rate

        public init() {}

        var cOptions: cvis_marker_detection_options {
            cvis_marker_detection_options(subpixel_window: Int32(clamping: subpixelWindow), min_perimeter_rate: minPerimeterRate)
        }
    }

    /// The markers of `dictionary` in the image at `url`, decoded upright at full resolution.
    /// - Throws: ``CVisionError`` naming the file when it cannot be read or decoded.
    public static func detect(in url: URL, dictionary: MarkerDictionary, options: Options = Options()) throws -> [DetectedMarker] {
        var cOptions = options.cOptions
        var buffer: OpaquePointer?
        var count: Int32 = 0
        try check(cvis_detect_markers(url.path, dictionary.index, &cOptions, &buffer, &count))
        return markers(taking: buffer, count: count)
    }

    /// The markers of `dictionary` in an 8-bit grey image (`pixels`, `width * height`, row-major).
    public static func detect(gray pixels: [UInt8], width: Int, height: Int, dictionary: MarkerDictionary,
                              options: Options = Options()) throws -> [DetectedMarker] {
        precondition(pixels.count == width * height, "one byte per pixel")
        var cOptions = options.cOptions
        var buffer: OpaquePointer?
        var count: Int32 = 0
        try check(cvis_detect_markers_gray(pixels, Int32(width), Int32(height), Int32(width), dictionary.index,
                                           &cOptions, &buffer, &count))
        return markers(taking: buffer, count: count)
    }

    /// Marker `id` of `dictionary` as a `side` x `side` grey image (0 black, 255 white), with
    /// its one-cell black border and no margin.
    /// - Throws: ``CVisionError`` (`invalidArgument`) for an id outside the dictionary.
    public static func draw(_ dictionary: MarkerDictionary, id: Int, side: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: side * side)
        try check(cvis_draw_marker(dictionary.index, Int32(clamping: id), Int32(clamping: side), &pixels))
        return pixels
    }

    /// Copies the markers out of the core's buffer and destroys it.
    private static func markers(taking buffer: OpaquePointer?, count: Int32) -> [DetectedMarker] {
        defer { cvis_buffer_destroy(buffer) }
        guard count > 0, let bytes = cvis_buffer_data(buffer) else { return [] }
        precondition(cvis_buffer_size(buffer) == Int(count) * MemoryLayout<cvis_marker>.size, "one struct per marker")
        return UnsafeRawPointer(bytes).withMemoryRebound(to: cvis_marker.self, capacity: Int(count)) { base in
            (0..<Int(count)).map { i in
                let marker = base[i]
                let c = marker.corners
                return DetectedMarker(id: Int(marker.id), corners: [SIMD2(c.0, c.1), SIMD2(c.2, c.3), SIMD2(c.4, c.5), SIMD2(c.6, c.7)])
            }
        }
    }
}
