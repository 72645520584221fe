import Foundation

/// What a run found, as `report.json`: statistics, rejected images and stage timings.
public struct Report: Codable, Sendable {
    /// One stage's wall time.
    public struct Stage: Codable, Sendable {
        public var name: String
        public var seconds: Double
    }

    public var imagesTotal = 0
    public var imagesRegistered = 0
    /// Registered images / usable images.
    public var alignmentRatio = 0.0
    public var meanReprojectionErrorPx = 0.0
    public var points3D = 0
    public var meanTrackLength = 0.0
    public var rejectedImages: [RejectedImage] = []
    /// Usable images that did not register, by name.
    public var unregisteredImages: [String] = []
    public var cameras: [ReportCamera] = []
    public var captureKind: String?
    public var azimuthCoverageDeg: Double?
    public var elevationSpreadDeg: Double?
    public var advice: [String] = []
    public var detail: String = "full"
    public var triangles: Int?
    public var textureSize: Int?
    public var stages: [Stage] = []
    public var version = "0.1.0"

    enum CodingKeys: String, CodingKey {
        case imagesTotal = "images_total", imagesRegistered = "images_registered"
        case alignmentRatio = "alignment_ratio", meanReprojectionErrorPx = "mean_reprojection_error_px"
        case points3D = "points3D", meanTrackLength = "mean_track_length"
        case rejectedImages = "rejected_images", unregisteredImages = "unregistered_images"
        case cameras, captureKind = "capture_kind", azimuthCoverageDeg = "azimuth_coverage_deg"
        case elevationSpreadDeg = "elevation_spread_deg", advice, detail, triangles
        case textureSize = "texture_size", stages, version
    }

    public init() {}

    /// The report as pretty, key-sorted JSON; absent optionals are written as null.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        // JSONEncoder omits nil optionals; the schema wants the keys present as null.
        guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return data }
        for key in ["capture_kind", "azimuth_coverage_deg", "elevation_spread_deg", "triangles", "texture_size"]
            where object[key] == nil {
            object[key] = NSNull()
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}

/// A camera as the report shows it.
public struct ReportCamera: Codable, Sendable {
    public var id: Int
    public var model: String
    public var width: Int
    public var height: Int
    public var params: [Double]
    public var images: Int
}

/// Writes `data` to `url` through a temporary file in the same folder and a rename, so a reader
/// never sees a half-written file.
public func writeAtomically(_ data: Data, to url: URL) throws {
    let temporary = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
    do {
        try data.write(to: temporary)
        if FileManager.default.fileExists(atPath: url.path) {
            _ = try FileManager.default.replaceItemAt(url, withItemAt: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: url)
        }
    } catch {
        try? FileManager.default.removeItem(at: temporary)
        throw PipelineError.io("\(url.path): cannot write (\(error.localizedDescription))")
    }
}
