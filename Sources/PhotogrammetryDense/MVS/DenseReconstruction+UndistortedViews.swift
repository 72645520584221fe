import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension DenseReconstruction {
    /// One undistorted view the dense stage left in its folder, posed: what texturing samples.
    public struct UndistortedView: Sendable {
        public var name: String
        public var view: MVSView
        public var imageURL: URL
        public var maskURL: URL
    }

    /// The registered images of `model` whose undistorted view and mask are in the dense folder
    /// `directory` (as its manifest records them), with their poses; sorted by name.
    public static func undistortedViews(of model: Reconstruction, in directory: URL) -> [UndistortedView] {
        let manifest = DenseManifest.load(from: directory)
        let images = OutputLayout.denseImages(in: directory), masks = OutputLayout.denseMasks(in: directory)
        var views: [UndistortedView] = []
        for image in model.images.values.sorted(by: { $0.name < $1.name }) {
            guard let pose = image.camFromWorld, let stored = manifest.views[image.name] else { continue }
            let flat = flatName(image.name)
            let imageURL = images.appendingPathComponent(flat + ".png"), maskURL = masks.appendingPathComponent(flat + ".png")
            guard exists(imageURL), exists(maskURL) else { continue }
            let view = MVSView(width: stored.width, height: stored.height, fx: stored.fx, fy: stored.fy,
                               cx: stored.cx, cy: stored.cy, camFromWorld: pose)
            views.append(UndistortedView(name: image.name, view: view, imageURL: imageURL, maskURL: maskURL))
        }
        return views
    }
}
