/// How much detail a reconstruction keeps: the dense working resolution, and the triangle cap
/// and texture size of the mesh stages (DESIGN.md, "Detail levels").
///
/// Each level up costs more time and memory, so the dense stage works on images downscaled to a
/// level's longer side: PatchMatch's cost grows with the pixel count (and the number of sources),
/// so `preview` at 640 px is about 9x cheaper per image than `full` at 1920 px. Apple's Object
/// Capture caps its levels by triangles; a mesh of 250k triangles (`full`) needs a cloud of some
/// million points, which a 1920 px frame (about 2 MP from a 4:3 phone frame of 6–12 MP) gives
/// with a few views agreeing per point, while a full-size 12 MP frame mostly adds noise and time.
/// `raw` keeps the original size for captures whose frames are small or whose detail is needed.
/// Images are never upscaled: a 640 px capture is worked on at 640 px at every level.
public enum DetailLevel: String, CaseIterable, Sendable, Codable, Comparable {
    case preview, reduced, medium, full, raw

    /// The level `--detail` names (case-insensitive), or nil.
    public init?(parsing text: String) {
        self.init(rawValue: text.lowercased())
    }

    /// The names `--detail` accepts, in increasing order, for messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }

    /// The longer side of a dense working image, in pixels; nil for the original size (`raw`).
    public var denseMaxImageSide: Int? {
        switch self {
        case .preview: return 640
        case .reduced: return 960
        case .medium: return 1280
        case .full: return 1920
        case .raw: return nil
        }
    }

    /// The most triangles the final mesh may keep; nil for no decimation (`raw`).
    public var maxTriangles: Int? {
        switch self {
        case .preview: return 25_000
        case .reduced: return 50_000
        case .medium: return 100_000
        case .full: return 250_000
        case .raw: return nil
        }
    }

    /// The side of one square texture page, in pixels (1K ... 8K).
    public var textureSize: Int {
        switch self {
        case .preview: return 1024
        case .reduced: return 2048
        case .medium: return 4096
        case .full, .raw: return 8192
        }
    }

    /// Texture pages at most: one per level, up to eight 8K pages for `raw`, which samples every
    /// chart at its view's full resolution and fills as many pages as that needs (eight hold
    /// 537 M texels, the pixels of 45 twelve-megapixel photos, in 1.6 GB while texturing; a
    /// capture needing more is scaled down to fit).
    public var maxTexturePages: Int { self == .raw ? 8 : 1 }

    public static func < (a: DetailLevel, b: DetailLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
