import CVision
import Foundation

/// What an image's EXIF says about it; zero or empty where a tag is absent.
public struct ImageMetadata: Sendable, Equatable {
    /// EXIF orientation 1...8, or 0 when absent.
    public var orientation: Int
    /// `FocalLength` in millimetres.
    public var focalLengthMM: Double
    /// `FocalLengthIn35mmFilm` in millimetres.
    public var focalLength35mm: Double
    /// `FocalPlaneXResolution`, pixels per unit.
    public var focalPlaneXResolution: Double
    /// The focal plane resolution unit, in millimetres.
    public var focalPlaneUnitMM: Double
    /// `PixelXDimension` as stored (before orientation).
    public var pixelWidth: Int
    /// `PixelYDimension` as stored (before orientation).
    public var pixelHeight: Int
    /// Camera maker.
    public var make: String
    /// Camera model.
    public var model: String

    public init(orientation: Int, focalLengthMM: Double, focalLength35mm: Double,
                focalPlaneXResolution: Double, focalPlaneUnitMM: Double, pixelWidth: Int, pixelHeight: Int,
                make: String, model: String) {
        self.orientation = orientation
        self.focalLengthMM = focalLengthMM
        self.focalLength35mm = focalLength35mm
        self.focalPlaneXResolution = focalPlaneXResolution
        self.focalPlaneUnitMM = focalPlaneUnitMM
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.make = make
        self.model = model
    }

    /// Reads the EXIF of `url`; a file without EXIF gives an all-zero value, not an error.
    public static func read(from url: URL) throws -> ImageMetadata {
        var info = cvis_exif_info()
        try check(cvis_read_exif(url.path, &info))
        return ImageMetadata(
            orientation: Int(info.orientation), focalLengthMM: info.focal_length_mm,
            focalLength35mm: info.focal_length_35mm,
            focalPlaneXResolution: info.focal_plane_x_resolution,
            focalPlaneUnitMM: info.focal_plane_unit_mm, pixelWidth: Int(info.pixel_width),
            pixelHeight: Int(info.pixel_height), make: string(fromTuple: &info.make),
            model: string(fromTuple: &info.model))
    }

    /// Width and height of the image at `url` once its EXIF orientation is applied.
    ///
    /// Reads only the header of JPEG, PNG and PNM files and the boxes of HEIF files; other formats
    /// (TIFF, WebP...) are refused, as the decoders refuse them.
    public static func probeSize(of url: URL) throws -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        try check(cvis_probe_image(url.path, &width, &height))
        return (Int(width), Int(height))
    }

    private static func string<T>(fromTuple tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { bytes in
            let characters = bytes.prefix { $0 != 0 }
            return String(decoding: characters, as: UTF8.self)
        }
    }
}

/// Caps that bound what ``ZipArchive/extract(_:to:limits:only:)`` writes; defaults from the core
/// (`cvis_unzip_limits_default`).
public struct UnzipLimits: Sendable, Equatable {
    /// Sum of all extracted entries, in bytes. Default 8 GiB.
    public var maxTotalBytes: UInt64 = CoreDefaults.unzipLimits.max_total_bytes
    /// Size of one entry, in bytes. Default 1 GiB.
    public var maxEntryBytes: UInt64 = CoreDefaults.unzipLimits.max_entry_bytes
    /// Number of entries in the archive. Default 100 000.
    public var maxEntries: UInt64 = CoreDefaults.unzipLimits.max_entries
    /// Inflated over compressed bytes of one entry of at least 1 MiB. Default 200: photos do
    /// not deflate (JPEG and PNG are compressed already), zip bombs reach 1000.
    public var maxCompressionRatio = CoreDefaults.unzipLimits.max_compression_ratio

    /// Creates the default limits.
    public init() {}

    /// Throws unless every cap is positive.
    public func validate() throws {
        guard maxTotalBytes > 0, maxEntryBytes > 0, maxEntries > 0, maxCompressionRatio >= 1 else {
            throw CVisionError(code: .invalidArgument, message: "UnzipLimits: every cap must be > 0, the ratio at least 1")
        }
    }

    func cLimits() -> cvis_unzip_limits {
        cvis_unzip_limits(
            max_total_bytes: maxTotalBytes, max_entry_bytes: maxEntryBytes, max_entries: maxEntries,
            max_compression_ratio: maxCompressionRatio)
    }
}

/// Safe extraction of zip archives (captures exported by phone apps).
public enum ZipArchive {
    /// One entry as the archive's headers declare it.
    public struct Entry: Sendable, Equatable {
        /// The entry's path inside the archive, as ``extract(_:to:limits:only:)`` takes it.
        public var path: String
        /// Bytes once inflated, as declared; nil when the headers do not say.
        public var size: UInt64?
        public var isDirectory: Bool
    }

    /// The entries of `archive`, from its headers (nothing is extracted); those extraction skips
    /// (`__MACOSX/`, dot-files) are left out. Throws as ``extract(_:to:limits:only:)`` does for a
    /// hostile entry or too many entries, and ``CVisionError`` naming the archive when it cannot
    /// be read.
    public static func entries(of archive: URL, limits: UnzipLimits = UnzipLimits()) throws -> [Entry] {
        try limits.validate()
        var cLimits = limits.cLimits()
        final class Box { var entries: [Entry] = [] }
        let box = Box()
        try withExtendedLifetime(box) {
            try check(cvis_zip_list(archive.path, &cLimits, { entry, context in
                guard let entry, let context else { return }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                box.entries.append(Entry(path: String(cString: entry.pointee.path),
                                         size: entry.pointee.size_known != 0 ? entry.pointee.size : nil,
                                         isDirectory: entry.pointee.is_directory != 0))
            }, Unmanaged.passUnretained(box).toOpaque()))
        }
        return box.entries
    }

    /// Extracts `archive` into the existing directory `destination`; returns the files written.
    ///
    /// Skips `__MACOSX/` and dot-files, and with `only` every entry whose path is not in it (the
    /// caps then apply to the chosen entries alone). Throws ``CVisionError/Code/unsafeArchive``
    /// (naming the entry) for absolute paths, `..`, links and devices, chosen or not, and
    /// ``CVisionError/Code/limitExceeded`` when a cap in `limits` is passed: before anything is
    /// written when the archive's directory declares it, else as soon as the bytes that come out
    /// pass it. Files written before a failure stay in `destination`.
    @discardableResult
    public static func extract(
        _ archive: URL, to destination: URL, limits: UnzipLimits = UnzipLimits(), only paths: [String]? = nil
    ) throws -> Int {
        try limits.validate()
        var cLimits = limits.cLimits()
        var written: Int32 = 0
        if let paths {
            try withCStringArray(paths) { names in
                try check(cvis_unzip_entries(archive.path, destination.path, &cLimits, names, Int32(paths.count), &written))
            }
        } else {
            try check(cvis_unzip(archive.path, destination.path, &cLimits, &written))
        }
        return Int(written)
    }
}
