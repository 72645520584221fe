import Foundation
import PhotogrammetryCore

/// What the dense folder holds and from what, so that a rerun redoes only what changed.
///
/// Stored as `OUTPUT/work/dense/manifest.json`. Every product (an undistorted view, a depth map,
/// the fused cloud) is recorded with a key and a few numbers: the key hashes its discrete inputs
/// (file stamps, detail level, options, source lists, the keys of what it was made from), the
/// numbers are its continuous inputs (camera parameters, poses, depth range), compared with a
/// small tolerance because a re-run bundle adjustment may differ in the last bits. A product is
/// reused when its file exists and both agree.
struct DenseManifest: Codable {
    /// One product's inputs.
    package struct Entry: Codable, Equatable {
        package var key: String
        package var values: [Double]

        /// Same key, and values equal to 1e-7 relative to the largest of them.
        package func matches(_ other: Entry) -> Bool {
            guard key == other.key, values.count == other.values.count else { return false }
            let scale = max(1, (values + other.values).map(abs).max() ?? 0)
            return zip(values, other.values).allSatisfy { abs($0 - $1) <= 1e-7 * scale }
        }
    }

    /// An undistorted view: its inputs and what the undistortion reported.
    package struct View: Codable, Equatable {
        package var entry: Entry
        package var width: Int
        package var height: Int
        package var fx: Double, fy: Double, cx: Double, cy: Double
    }

    /// The fused cloud: its inputs and its point count.
    struct Cloud: Codable, Equatable {
        package var entry: Entry
        package var points: Int
        /// Of them, those made from sensor depth (absent in manifests from before sensor depth).
        package var sensorPoints: Int?
        /// The area of the room's envelope closed where the cloud has nothing (absent before it was).
        package var closedArea: Double?
    }

    static let currentVersion = 1

    package var version = currentVersion
    /// By image name.
    package var views: [String: View] = [:]
    /// By depth-map file name (`NAME.photometric.cvdm`, `NAME.geometric.cvdm`, `NAME.sensor.cvdm`).
    package var depthMaps: [String: Entry] = [:]
    package var cloud: Cloud?

    package enum CodingKeys: String, CodingKey {
        case version, views, depthMaps = "depth_maps", cloud
    }

    /// The manifest in `folder`, or an empty one when there is none or it is unreadable or old.
    package static func load(from folder: URL) -> DenseManifest {
        guard let data = try? Data(contentsOf: url(in: folder)),
              let manifest = try? JSONDecoder().decode(DenseManifest.self, from: data),
              manifest.version == currentVersion else { return DenseManifest() }
        return manifest
    }

    /// Writes the manifest through a temporary file and a rename.
    package func save(to folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try writeAtomically(try encoder.encode(self), to: Self.url(in: folder))
    }

    package static func url(in folder: URL) -> URL { OutputLayout.denseManifest(in: folder) }
}

/// A file's contents as a key: a changed file changes it, a copy or a re-extracted zip (new
/// modification times) does not.
func fileStamp(_ url: URL) -> String { ContentDigest.file(url) }
