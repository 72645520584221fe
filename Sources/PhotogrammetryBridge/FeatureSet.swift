import CVision
import Foundation

/// Options of SIFT extraction.
public struct SIFTOptions: Sendable, Equatable {
    /// Features kept, the strongest by detector response. Default 8192.
    public var maxFeatures = Int(CoreDefaults.sift.max_features)
    /// Longer image side above which the image is downscaled before detection. Default 1600.
    ///
    /// OpenCV's SIFT doubles its input first, so 1600 already samples scale space like
    /// COLMAP's 3200 and keeps a 6 MP image well under a second on one core.
    public var maxImageSize = Int(CoreDefaults.sift.max_image_size)
    /// Detector contrast threshold; lower finds more features in weak texture. Default 0.04.
    public var contrastThreshold = CoreDefaults.sift.contrast_threshold
    /// Detector edge threshold (principal curvature ratio). Default 10.
    public var edgeThreshold = CoreDefaults.sift.edge_threshold
    /// Features an image should have; when fewer pass the masks at ``contrastThreshold``, the
    /// threshold is halved (down to ``minContrastThreshold``) until this many do. 0 turns the
    /// adaptation off. Default ``SIFTOptions/workingFeatureCount``.
    public var minFeatures: Int = SIFTOptions.workingFeatureCount
    /// The lowest contrast threshold adaptation goes to. Default 0.005, an eighth of the default
    /// (three halvings): per scale layer that is a DoG contrast of 0.005 / 3 of the intensity
    /// range, 0.4 grey levels of an 8-bit image; lower thresholds accept extrema smaller than the
    /// image's own quantisation: noise, not texture (docs/benchmarks.md).
    public var minContrastThreshold = CoreDefaults.sift.min_contrast_threshold
    /// With an alpha channel, a keypoint is kept only when the nearest transparent pixel is more
    /// than this many times its scale (sigma) away. Default 10.6: SIFT's descriptor window is
    /// 4 x 4 cells of 3 sigma, with interpolation half a cell more on each side, turned to any
    /// angle: a radius of 3 sigma * sqrt(2) * (4 + 1) / 2.
    public var alphaMargin = CoreDefaults.sift.alpha_margin
    /// Frames still below ``minFeatures`` at ``minContrastThreshold`` are detected again with
    /// affine simulations (OpenCV's `AffineFeature`, ASIFT) up to this tilt index. Default 0: off.
    ///
    /// Between neighbours ASIFT gives several times the verified matches, but in the pipeline the
    /// frames it rescues do not grow steadily with the tilt, at several times the run time, and
    /// keeping only its strongest features loses the ring (docs/benchmarks.md).
    public var affineMaxTilt = Int(CoreDefaults.sift.affine_max_tilt)
    /// RootSIFT descriptors (L1-normalise then square root). Default true.
    public var rootSIFT = CoreDefaults.sift.root_sift != 0
    /// Keypoints in the upright image (EXIF orientation applied). Default true.
    public var applyEXIFOrientation = CoreDefaults.sift.apply_exif_orientation != 0

    /// Features a frame needs to take part in a reconstruction: 500.
    ///
    /// The initial pair must triangulate ``MapperOptions/initMinNumPoints`` (100) points, and a
    /// frame shares about a fifth of its features as 3D points with its best neighbour: the
    /// median share is 0.20 on synthetic-orbit (masked, textured) and 0.19 on a smoothed
    /// synthetic-orbit at contrast 0.005 (0.51 on templeRing), so 100 / 0.2 = 500. Registration
    /// asks less: 30 PnP inliers at the share of the worst tenth of frames (0.10) is 300.
    /// Well-textured captures stay above it (fewest features per frame at 0.04: templeRing 597,
    /// synthetic-orbit 555 inside its masks, turntable-temple 630), so adaptation leaves them alone.
    public static let workingFeatureCount = Int(CoreDefaults.sift.min_features)

    /// Creates the default options.
    public init() {}

    /// Throws ``CVisionError/Code/invalidArgument`` when a value is out of range.
    public func validate() throws {
        guard maxFeatures > 0, maxFeatures <= Int(Int32.max) else {
            throw CVisionError(code: .invalidArgument, message: "SIFTOptions.maxFeatures must be > 0")
        }
        guard maxImageSize >= 16, maxImageSize <= Int(Int32.max) else {
            throw CVisionError(code: .invalidArgument, message: "SIFTOptions.maxImageSize must be >= 16")
        }
        guard contrastThreshold > 0, edgeThreshold > 0, minContrastThreshold > 0 else {
            throw CVisionError(
                code: .invalidArgument, message: "SIFTOptions thresholds must be > 0")
        }
        guard minFeatures >= 0, minFeatures <= Int(Int32.max), alphaMargin >= 0, (0...8).contains(affineMaxTilt) else {
            throw CVisionError(
                code: .invalidArgument,
                message: "SIFTOptions.minFeatures and alphaMargin must be >= 0, affineMaxTilt in 0...8")
        }
    }

    func cOptions() -> cvis_sift_options {
        cvis_sift_options(
            max_features: Int32(maxFeatures), max_image_size: Int32(maxImageSize),
            contrast_threshold: contrastThreshold, edge_threshold: edgeThreshold,
            root_sift: rootSIFT ? 1 : 0, apply_exif_orientation: applyEXIFOrientation ? 1 : 0,
            min_features: Int32(minFeatures), min_contrast_threshold: minContrastThreshold,
            alpha_margin: alphaMargin, affine_max_tilt: Int32(affineMaxTilt))
    }
}

/// SIFT keypoints, descriptors and colours of one image, owned by the C++ core.
///
/// Immutable once created; matching may read one set from several threads at once.
public final class FeatureSet: @unchecked Sendable {
    package let handle: OpaquePointer

    package init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvis_features_destroy(handle) }

    /// Decodes `imageURL` and extracts SIFT features, keeping only those every given mask keeps.
    ///
    /// - Parameters:
    ///   - imageURL: The image (JPEG, PNG, ...).
    ///   - maskURL: An optional 8-bit mask in upright pixels, 255 = keep (resized if needed).
    ///   - keepRect: An optional keep-rectangle in upright pixels.
    ///   - options: Extraction options.
    public static func extract(
        imageURL: URL, maskURL: URL? = nil, keepRect: CGRect? = nil,
        options: SIFTOptions = SIFTOptions()
    ) throws -> FeatureSet {
        try options.validate()
        var cOptions = options.cOptions()
        var handle: OpaquePointer?
        try withRect(keepRect) { rect in
            try check(cvis_extract_features(imageURL.path, maskURL?.path, rect, &cOptions, &handle))
        }
        return FeatureSet(handle: handle!)
    }

    /// These features with finer ones after them: SIFT one octave below the finest these hold
    /// (the working image upsampled by 2), for an image whose features were too coarse to link
    /// it. Keypoint `k` of `self` is keypoint `k` of the result; arguments as given to
    /// ``extract(imageURL:maskURL:keepRect:options:)`` for `self`.
    public func addingFinerFeatures(imageURL: URL, maskURL: URL? = nil, keepRect: CGRect? = nil,
                                    options: SIFTOptions = SIFTOptions()) throws -> FeatureSet {
        try options.validate()
        var cOptions = options.cOptions()
        var finer: OpaquePointer?
        try Self.withRect(keepRect) { rect in
            try check(cvis_extract_finer_features(imageURL.path, maskURL?.path, rect, &cOptions, handle, &finer))
        }
        return FeatureSet(handle: finer!)
    }

    /// Calls `body` with the keep-rectangle as the C core takes it (nil for none).
    private static func withRect(_ keepRect: CGRect?, _ body: (UnsafePointer<cvis_rect>?) throws -> Void) throws {
        guard let keepRect else { return try body(nil) }
        var rect = cvis_rect(x: Double(keepRect.minX), y: Double(keepRect.minY),
                             width: Double(keepRect.width), height: Double(keepRect.height))
        try body(&rect)
    }

    /// Loads features written by ``save(to:)``.
    public static func load(from url: URL) throws -> FeatureSet {
        var handle: OpaquePointer?
        try check(cvis_features_load(url.path, &handle))
        return FeatureSet(handle: handle!)
    }

    /// Writes the features to `url` (atomically, as a checkpoint).
    public func save(to url: URL) throws {
        try check(cvis_features_save(handle, url.path))
    }

    /// Number of features.
    public var count: Int { Int(cvis_features_count(handle)) }

    /// Width of the full-size upright image, in pixels.
    public var imageWidth: Int { Int(cvis_features_image_width(handle)) }

    /// Height of the full-size upright image, in pixels.
    public var imageHeight: Int { Int(cvis_features_image_height(handle)) }

    /// Keypoint `index` as (x, y, scale, orientation): pixels with the top-left pixel's centre at
    /// (0.5, 0.5) in the full-size upright image, scale in pixels, orientation in radians.
    public func keypoint(at index: Int) -> SIMD4<Float> {
        precondition(index >= 0 && index < count, "keypoint index \(index) out of range")
        let base = cvis_features_keypoints(handle)! + 4 * index
        return SIMD4(base[0], base[1], base[2], base[3])
    }

    /// Descriptor `index`: 128 floats of unit length.
    public func descriptor(at index: Int) -> [Float] {
        precondition(index >= 0 && index < count, "descriptor index \(index) out of range")
        let base = cvis_features_descriptors(handle)! + 128 * index
        return Array(UnsafeBufferPointer(start: base, count: 128))
    }

    /// All keypoints, as ``keypoint(at:)`` gives them.
    public var keypoints: [SIMD4<Float>] {
        let n = count
        guard n > 0, let base = cvis_features_keypoints(handle) else { return [] }
        return (0..<n).map { SIMD4(base[4 * $0], base[4 * $0 + 1], base[4 * $0 + 2], base[4 * $0 + 3]) }
    }

    /// Sharpness of the image: gradient energy at a working size of 640 px, inside the masks
    /// (with an alpha channel, away from the cut-out's edge).
    public var blurScore: Double { cvis_features_blur_score(handle) }

    /// How much the image's grey levels vary: their standard deviation (intensity in [0, 1]) at
    /// the blur score's working size, inside the same masks. Near 0 for a blank frame.
    public var contrast: Double { cvis_features_contrast(handle) }

    /// The contrast threshold the features were detected at: the options' threshold, or lower
    /// where the image had too few features at it (see ``SIFTOptions/minFeatures``).
    public var contrastThreshold: Double { cvis_features_contrast_threshold(handle) }

    /// Features that passed the masks at the options' contrast threshold, before adaptation and
    /// before the ``SIFTOptions/maxFeatures`` cut: the image's texture as SIFT's default sees it.
    public var countAtBaseThreshold: Int { Int(cvis_features_count_at_base_threshold(handle)) }

    /// Whether the image's alpha channel masked it (it has transparent pixels).
    public var maskFromAlpha: Bool { cvis_features_mask_from_alpha(handle) != 0 }

    /// The blur score of an 8-bit grey image in memory, as ``blurScore`` measures it.
    public static func blurScore(gray pixels: [UInt8], width: Int, height: Int) throws -> Double {
        precondition(pixels.count >= width * height, "pixel buffer too small")
        var score = 0.0
        try pixels.withUnsafeBufferPointer { buffer in
            try check(cvis_blur_score_gray(buffer.baseAddress, Int32(width), Int32(height), Int32(width), &score))
        }
        return score
    }

    /// RGB colour of the image at each keypoint.
    public var colors: [SIMD3<UInt8>] {
        let n = count
        guard n > 0, let base = cvis_features_colors(handle) else { return [] }
        return (0..<n).map { SIMD3(base[3 * $0], base[3 * $0 + 1], base[3 * $0 + 2]) }
    }
}
