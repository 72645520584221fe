import CVision

/// Options of ``TextureAtlas/make(mesh:views:imageURLs:maskURLs:options:)``; every default is
/// the C core's (`cvis_texture_options_default`).
public struct TextureOptions: Equatable, Sendable {
    /// Side of a square atlas page in texels.
    public var pageSize = Int(CoreDefaults.texture.page_size)
    /// Pages the charts may fill; they are scaled down until they fit.
    public var maxPages = Int(CoreDefaults.texture.max_pages)
    /// Texels of each chart's own view around it, so mip-maps never reach another chart.
    public var paddingPx = Int(CoreDefaults.texture.padding_px)
    /// The finest sampling of a view, texels per pixel.
    public var maxTexelPerPixel = CoreDefaults.texture.max_texel_per_pixel
    /// A view seeing a face more obliquely than acos of this does not texture it.
    public var minViewCos = CoreDefaults.texture.min_view_cos
    /// Cost of each neighbouring face textured from another view (data costs lie in 0...1).
    public var smoothness = CoreDefaults.texture.smoothness
    /// Rounds of iterated conditional modes for the view selection.
    public var smoothingIterations = Int(CoreDefaults.texture.smoothing_iterations)
    /// The best views by quality a face may choose from.
    public var maxViewsPerFace = Int(CoreDefaults.texture.max_views_per_face)
    /// How exposure and shading steps between charts are levelled.
    public var seamLevelling = SeamLevelling(rawValue: CoreDefaults.texture.level_seams) ?? .local
    /// Per-view levelling: pull of each view's offset towards zero, against a seam sample's weight of 1.
    public var seamRegularization = CoreDefaults.texture.seam_regularization
    /// Local levelling: the scale, in pixels of a chart's view, over which its correction is smoothed.
    public var localSeamSigmaPx = CoreDefaults.texture.local_seam_sigma_px
    /// Worker threads.
    public var numThreads = Int(CoreDefaults.texture.num_threads)

    public init() {}

    /// Seam levelling modes (the C core's `level_seams`).
    public enum SeamLevelling: Int32, Sendable {
        /// Charts keep their views' colours.
        case off = 0
        /// One colour offset per view, so that the seams agree in the least-squares sense.
        case perView = 1
        /// The per-view offsets, then each chart moved, vertex by vertex, to the colour its faces'
        /// views agree on; detail within a face stays its own view's.
        case local = 2
    }

    /// The options as the C core takes them.
    var cOptions: cvis_texture_options {
        var o = CoreDefaults.texture
        o.page_size = Int32(pageSize)
        o.max_pages = Int32(maxPages)
        o.padding_px = Int32(paddingPx)
        o.max_texel_per_pixel = maxTexelPerPixel
        o.min_view_cos = minViewCos
        o.smoothness = smoothness
        o.smoothing_iterations = Int32(smoothingIterations)
        o.max_views_per_face = Int32(maxViewsPerFace)
        o.level_seams = seamLevelling.rawValue
        o.seam_regularization = seamRegularization
        o.local_seam_sigma_px = localSeamSigmaPx
        o.num_threads = Int32(numThreads)
        return o
    }

    /// Throws when a value is out of its meaningful range (the ranges the core checks too).
    public func validate() throws {
        func require(_ ok: Bool, _ message: String) throws {
            if !ok { throw CVisionError.invalidOption(message) }
        }
        try require((64...16384).contains(pageSize), "texture pageSize must be in 64...16384")
        try require((1...256).contains(maxPages), "texture maxPages must be in 1...256")
        try require((0...64).contains(paddingPx), "texture paddingPx must be in 0...64")
        try require(maxTexelPerPixel > 0, "texture maxTexelPerPixel must be positive")
        try require((-1...1).contains(minViewCos), "texture minViewCos must be in -1...1")
        try require(smoothness >= 0 && smoothingIterations >= 0, "texture smoothing must not be negative")
        try require(maxViewsPerFace >= 1, "texture maxViewsPerFace must be at least 1")
        try require(seamRegularization > 0, "texture seamRegularization must be positive")
        try require(localSeamSigmaPx >= 0, "texture localSeamSigmaPx must not be negative")
        try require(numThreads >= 1, "texture numThreads must be at least 1")
    }
}
