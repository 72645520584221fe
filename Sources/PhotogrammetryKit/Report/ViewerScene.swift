import Foundation
import PhotogrammetryCore

/// What report.html's 3D viewer shows: the model (small enough for the page), the registered
/// cameras, the sparse points and a subsample of the dense cloud, all in the model's frame.
///
/// Geometry goes into the page quantised (16-bit positions within a box, 16-bit texture
/// coordinates, 16- or 32-bit indices) and base64-encoded, so the page stays a single file that
/// opens from `file://`. ``ReportHTML/viewerSection(_:)`` writes it; `ViewerScene+Run.swift`
/// makes it from a run.
public struct ViewerScene: Sendable {
    /// A triangle mesh with either one texture per material group or vertex colours.
    public struct Mesh: Sendable {
        public var positions: [SIMD3<Float>]
        /// Texture coordinates (u right, v up), one per position, or nil for vertex colours.
        public var uvs: [SIMD2<Float>]?
        /// sRGB colours, one per position (shown when there are no texture coordinates).
        public var colors: [SIMD3<UInt8>]
        public var triangles: [SIMD3<Int32>]
        /// Consecutive runs of ``triangles`` sharing one texture: (first triangle, count, texture index).
        public var groups: [(first: Int, count: Int, texture: Int)]
        /// JPEG bytes of each texture page.
        public var texturesJPEG: [Data]
        /// How the mesh was made smaller for the page, if it was (one line for the reader).
        public var reduction: String?

        public init(positions: [SIMD3<Float>], uvs: [SIMD2<Float>]?, colors: [SIMD3<UInt8>], triangles: [SIMD3<Int32>],
                    groups: [(first: Int, count: Int, texture: Int)], texturesJPEG: [Data], reduction: String? = nil) {
            (self.positions, self.uvs, self.colors, self.triangles) = (positions, uvs, colors, triangles)
            (self.groups, self.texturesJPEG, self.reduction) = (groups, texturesJPEG, reduction)
        }
    }

    /// A registered camera: its pinhole intrinsics (distortion left out) and pose.
    public struct Camera: Sendable {
        /// The image's name, as in the report's image table.
        public var name: String
        public var width: Int
        public var height: Int
        public var focalLengths: SIMD2<Double>
        public var principalPoint: SIMD2<Double>
        public var camFromWorld: Rigid3

        public init(name: String, width: Int, height: Int, focalLengths: SIMD2<Double>,
                    principalPoint: SIMD2<Double>, camFromWorld: Rigid3) {
            (self.name, self.width, self.height) = (name, width, height)
            (self.focalLengths, self.principalPoint, self.camFromWorld) = (focalLengths, principalPoint, camFromWorld)
        }
    }

    /// Coloured points.
    public struct Points: Sendable {
        public var positions: [SIMD3<Float>]
        public var colors: [SIMD3<UInt8>]
        /// How many points the source had (more than ``positions`` when subsampled).
        public var sourceCount: Int

        public init(positions: [SIMD3<Float>], colors: [SIMD3<UInt8>], sourceCount: Int? = nil) {
            (self.positions, self.colors) = (positions, colors)
            self.sourceCount = sourceCount ?? positions.count
        }

        /// At most `limit` of `positions` (with their colours), evenly strided through the list.
        public static func subsampled(_ positions: [SIMD3<Float>], colors: [SIMD3<UInt8>]?, limit: Int) -> Points {
            let stride = max(1, (positions.count + limit - 1) / max(1, limit))
            let picked = Swift.stride(from: 0, to: positions.count, by: stride)
            let grey = SIMD3<UInt8>(160, 160, 160)
            let colours = colors.flatMap { $0.count == positions.count ? $0 : nil }
            return Points(positions: picked.map { positions[$0] }, colors: picked.map { colours?[$0] ?? grey },
                          sourceCount: positions.count)
        }
    }

    /// The most triangles the page carries: the preview level's cap, whose textured mesh with
    /// a 1K texture page adds about 1 MB to the page.
    public static let maxTriangles = DetailLevel.preview.maxTriangles ?? 25_000
    /// The longest side of a texture page in the page, pixels.
    public static let textureSide = 1024
    /// The most sparse points in the page (a sparse model rarely has more).
    public static let maxSparsePoints = 50_000
    /// The most dense-cloud points in the page (about 9 bytes each before base64).
    public static let maxDensePoints = 30_000

    public var mesh: Mesh?
    public var cameras: [Camera]
    public var sparsePoints: Points
    public var densePoints: Points?
    /// The frame's up direction when the run knows it (+Y for an upright or marker-board
    /// frame), nil to take the cameras' mean up direction.
    public var up: SIMD3<Double>?

    public init(mesh: Mesh?, cameras: [Camera], sparsePoints: Points, densePoints: Points? = nil, up: SIMD3<Double>? = nil) {
        (self.mesh, self.cameras, self.sparsePoints, self.densePoints, self.up) = (mesh, cameras, sparsePoints, densePoints, up)
    }

    /// The up direction of a model frame named as ``Report/modelFrame`` names it, when it has one.
    public static func up(ofModelFrame frame: String?) -> SIMD3<Double>? {
        frame == "upright" || frame == "marker_board" ? SIMD3(0, 1, 0) : nil
    }
}
