import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The renders `report.html` shows of the textured model: four views around it, and a few of
/// the capture's own views with the (undistorted) photo beside the render, so that a person
/// sees at a glance where the model departs from what the camera saw.
public struct ModelRenders: Sendable {
    /// A view of the model: its name and PNG bytes (RGBA, transparent background).
    public struct Render: Sendable {
        public var name: String
        public var png: Data
    }

    /// A capture view: the photo (JPEG) and the model rendered from its camera (PNG).
    public struct Pair: Sendable {
        public var imageName: String
        public var photoJPEG: Data
        public var renderPNG: Data
    }

    /// Front, right, back and left (``RenderViews/orbit(around:longerSide:elevationDegrees:margin:)``).
    public var views: [Render]
    /// Capture views spread evenly through the registered images.
    public var pairs: [Pair]

    /// Longer side of the four views, pixels.
    public static let viewSize = 480
    /// Longer side of a photo and its render, pixels.
    public static let pairSize = 360
    /// Capture views shown.
    public static let pairCount = 3

    /// Renders `model` around its box and from `cameras` (pinhole views with their photos, e.g.
    /// the dense stage's undistorted views), ``pairCount`` of them spread evenly.
    public static func make(model: MeshModel, cameras: [(name: String, view: MVSView, photo: URL)]) throws -> ModelRenders {
        guard let bounds = model.bounds else { return ModelRenders(views: [], pairs: []) }
        let renderer = try MeshRenderer(model)
        let views = try RenderViews.orbit(around: bounds, longerSide: viewSize).map { view in
            Render(name: (view.fileName as NSString).deletingPathExtension, png: try renderer.render(view.camera).pngData())
        }
        let near = 1e-4 * max(length(bounds.size), 1e-12)
        let chosen = cameras.isEmpty ? [] : (0..<min(pairCount, cameras.count)).map {
            cameras[($0 * cameras.count + cameras.count / 2) / max(1, min(pairCount, cameras.count))]
        }
        let pairs = try chosen.map { camera -> Pair in
            let view = camera.view
            let render = try renderer.render(RenderViews.pinhole(
                width: view.width, height: view.height, focalLengths: SIMD2(view.fx, view.fy),
                principalPoint: SIMD2(view.cx, view.cy), camFromWorld: view.camFromWorld,
                longerSide: pairSize, nearDepth: near))
            return Pair(imageName: camera.name, photoJPEG: try Thumbnail.jpeg(of: camera.photo, maxSide: pairSize, quality: 80),
                        renderPNG: try render.pngData())
        }
        return ModelRenders(views: views, pairs: pairs)
    }
}
