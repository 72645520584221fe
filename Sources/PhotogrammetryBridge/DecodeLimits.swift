import CVision
import Foundation
import PhotogrammetryCore

/// The largest image the core decodes, judged from the size a file's header declares before any
/// pixel is decoded (a 40 KB JPEG can claim 30000×30000 and would take 2.7 GB to decode).
///
/// The limit is the process's: every decode checks it (photos, masks, depth images, thumbnails,
/// texturing, textures inside model files, video frames), so a run sets it once, before it
/// reads its capture (``apply()``). Formats the core cannot size from a header (TIFF, WebP, BMP)
/// are never decoded.
public struct DecodeLimits: Sendable, Equatable {
    /// Width × height, in pixels. Default 120 MP (the core's `cvis_decode_limits_default`, which says why).
    public var maxPixels: UInt64 = CoreDefaults.decodeLimits.max_pixels

    /// The default limits.
    public init() {}

    /// The largest value `--max-megapixels` takes: a 1000 MP image is 3 GB decoded before any work,
    /// and OpenCV's own codecs refuse more than 2^30 pixels with a message of their own.
    public static let largestMegapixels = 1000.0

    /// The limit in megapixels, as `--max-megapixels` gives it.
    public var maxMegapixels: Double {
        get { Double(maxPixels) / 1e6 }
        set { maxPixels = UInt64((newValue * 1e6).rounded()) }
    }

    /// Megapixels as `--max-megapixels` writes them, without trailing zeros: "120", "1.5".
    public static func megapixelsText(_ pixels: UInt64) -> String {
        var text = String(format: "%.6f", Double(pixels) / 1e6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Throws unless the limit is above zero and at most ``largestMegapixels``.
    public func validate() throws {
        guard maxPixels > 0, maxMegapixels <= Self.largestMegapixels else {
            throw PipelineError.invalidOption("--max-megapixels must be above 0 and at most \(Int(Self.largestMegapixels))")
        }
    }

    var cLimits: cvis_decode_limits { cvis_decode_limits(max_pixels: maxPixels) }

    /// The limits every decode in this process checks from now on.
    public static var current: DecodeLimits {
        var limits = cvis_decode_limits()
        cvis_get_decode_limits(&limits)
        var current = DecodeLimits()
        current.maxPixels = limits.max_pixels
        return current
    }

    /// Makes these the limits of every later decode in this process.
    public func apply() throws {
        try validate()
        var limits = cLimits
        try check(cvis_set_decode_limits(&limits))
    }

    /// Throws the core's reason (``CVisionError`` naming the file) when the image at `url` would
    /// not be decoded: above the limit, as its header declares, or of a format the core does not size.
    public static func checkDecodable(_ url: URL) throws {
        try check(cvis_check_decodable(url.path))
    }
}
