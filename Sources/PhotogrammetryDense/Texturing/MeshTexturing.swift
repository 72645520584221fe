import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetrySparse

/// Textures a mesh made elsewhere (a LiDAR scan, a RoomPlan room, a ground-truth model) from a
/// capture's photos whose poses are known in the mesh's frame (pose priors, `transforms.json`):
/// each posed photo is undistorted to a pinhole view at the detail level's working size (under
/// the capture's masks), then ``TextureAtlas`` selects views per face, packs charts and levels
/// seams as for our own meshes.
public enum MeshTexturing {
    /// What was textured.
    public struct Result {
        public var model: MeshModel
        /// Photos used (those with a prior that has intrinsics).
        public var views: Int
        public var pageSize: Int
        public var charts: Int
        /// Faces no view sees (they keep the mesh's own colour).
        public var untexturedFaces: Int
    }

    /// Textures `mesh` from `capture`'s photos at the poses of `priors`.
    /// - Parameters:
    ///   - workspace: where the undistorted views are written (`images/`, `masks/`).
    ///   - detail: sets the working size of the views and the page size.
    /// - Throws: ``PipelineError/invalidInput(_:)`` when no photo has a prior with intrinsics;
    ///   ``CVisionError`` from undistortion or texturing, naming the file.
    public static func run(mesh: MeshModel, capture: Capture, priors: PosePriors, masks: MaskSource?,
                           workspace: URL, detail: DetailLevel, threads: Int, jpegQuality: Int = 95) throws -> Result {
        let posed = capture.images.compactMap { image -> PosedPhoto? in
            guard let prior = priors.byName[image.name], let camera = prior.camera else { return nil }
            return PosedPhoto(image: image, camFromWorld: prior.camFromWorld, camera: camera)
        }
        guard !posed.isEmpty else {
            throw PipelineError.invalidInput("\(priors.file.path): no frame gives a pose and intrinsics for any of the capture's images")
        }
        return try run(mesh: mesh, posed: posed, masks: masks, workspace: workspace, detail: detail, threads: threads,
                       jpegQuality: jpegQuality)
    }

    /// A photo with its pose in the mesh's frame and its camera.
    public struct PosedPhoto {
        public var image: CaptureImage
        public var camFromWorld: Rigid3
        public var camera: Camera

        public init(image: CaptureImage, camFromWorld: Rigid3, camera: Camera) {
            (self.image, self.camFromWorld, self.camera) = (image, camFromWorld, camera)
        }
    }

    /// Textures `mesh` from photos posed in its frame.
    public static func run(mesh: MeshModel, posed: [PosedPhoto], masks: MaskSource?, workspace: URL, detail: DetailLevel,
                           threads: Int, jpegQuality: Int = 95) throws -> Result {
        let images = OutputLayout.denseImages(in: workspace), maskFolder = OutputLayout.denseMasks(in: workspace)
        for folder in [images, maskFolder] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let slots = ResultSlots<Swift.Result<(MVSView, URL, URL), Error>>(count: posed.count)
        parallelFor(posed.count, threads: threads) { n in
            let (image, pose, camera) = (posed[n].image, posed[n].camFromWorld, posed[n].camera)
            let flat = DenseReconstruction.flatName(image.name)
            let imageURL = images.appendingPathComponent(flat + ".png"), maskURL = maskFolder.appendingPathComponent(flat + ".png")
            slots[n] = Swift.Result {
                var view = try Undistortion.undistort(image: image.url, maskFile: masks?.maskURL(for: image), keepRect: masks?.keepRect,
                                                      camera: camera, maxSide: detail.denseMaxImageSide ?? 0,
                                                      outputImage: imageURL, outputMask: maskURL)
                view.camFromWorld = pose
                return (view, imageURL, maskURL)
            }
        }
        let views = try slots.values.map { try unwrap($0) }
        var options = TextureOptions()
        options.pageSize = detail.textureSize
        options.numThreads = threads
        let atlas = try TextureAtlas.make(positions: mesh.positions, triangles: mesh.triangles, colors: mesh.colors,
                                          views: views.map(\.0), imageURLs: views.map(\.1), maskURLs: views.map(\.2),
                                          options: options)
        return Result(model: try mesh.textured(by: atlas, jpegQuality: jpegQuality), views: views.count,
                      pageSize: atlas.pageSize, charts: atlas.chartCount,
                      untexturedFaces: atlas.faceViews.filter { $0 < 0 }.count)
    }

    /// The value of a slot that was filled, or its error.
    private static func unwrap<T>(_ slot: Swift.Result<T, Error>?) throws -> T {
        guard let slot else { throw PipelineError.invalidInput("texture: a view was not processed") }
        return try slot.get()
    }
}
