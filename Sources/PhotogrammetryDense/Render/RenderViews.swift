import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The views `photogrammetry render` draws a model from: four around its bounding box, or the
/// cameras of a COLMAP model (one per image, so each render can sit beside its photo).
public enum RenderViews {
    /// A camera and the file name (relative to the output folder) its render is written to.
    public struct View: Sendable, Equatable {
        public var fileName: String
        public var camera: RenderCamera
    }

    /// The longest side, in pixels, of any render (the SIZE argument, a camera's image): the
    /// core's rasteriser refuses larger, and at this size a render's RGBA and depth buffers
    /// already take 2 GiB. It is above every single-shot camera sensor (150 MP medium-format
    /// backs are 14204 px wide), so a camera beyond it in a model's file is a damaged or hostile
    /// file, refused before its pixels are allocated.
    public static let largestSide = 16384

    /// The azimuths of the default views, degrees around the up axis (+Y) from the front (+Z).
    public static let orbitAzimuths: [(name: String, degrees: Double)] = [
        ("front", 0), ("right", 90), ("back", 180), ("left", 270),
    ]

    /// Four pinhole views of `bounds` (front, right, back, left: from +Z, +X, -Z, -X), each from
    /// `elevationDegrees` above the box centre's horizon, looking at the centre from 2.5 times
    /// the box's half diagonal (a 47° cone holds the box's sphere), the image as wide and high as
    /// the projected box needs with `margin` (a fraction of the extent) on each side; the
    /// longer side is `longerSide` pixels.
    public static func orbit(around bounds: BoundingBox, longerSide: Int, elevationDegrees: Double = 30,
                             margin: Double = 0.05) -> [View] {
        let centre = (bounds.min + bounds.max) / 2
        var radius = length(bounds.max - bounds.min) / 2
        if !(radius > 0) || !radius.isFinite { radius = 1 }
        let distance = 2.5 * radius
        let elevation = elevationDegrees * .pi / 180
        let corners = (0..<8).map { k in
            SIMD3(k & 1 == 0 ? bounds.min.x : bounds.max.x, k & 2 == 0 ? bounds.min.y : bounds.max.y,
                  k & 4 == 0 ? bounds.min.z : bounds.max.z)
        }
        return orbitAzimuths.map { name, degrees in
            let azimuth = degrees * .pi / 180
            let direction = SIMD3(cos(elevation) * sin(azimuth), sin(elevation), cos(elevation) * cos(azimuth))
            let pose = lookAt(centre, from: centre + distance * direction)
            // Normalised image extents of the box, symmetric about the optical axis.
            var extent = SIMD2<Double>(1e-6, 1e-6)
            for corner in corners {
                let p = pose.apply(corner)
                extent = pointwiseMax(extent, SIMD2(abs(p.x / p.z), abs(p.y / p.z)))
            }
            extent *= 1 + 2 * margin
            extent = pointwiseMax(extent, SIMD2(repeating: extent.max() / 4))  // no sliver images
            let focal = Double(longerSide) / (2 * extent.max())
            let width = max(1, Int((2 * extent.x * focal).rounded()))
            let height = max(1, Int((2 * extent.y * focal).rounded()))
            let camera = RenderCamera(width: width, height: height, focalLengths: SIMD2(focal, focal),
                                      principalPoint: SIMD2(Double(width), Double(height)) / 2,
                                      camFromWorld: pose, nearDepth: 1e-3 * radius)
            return View(fileName: "\(name).png", camera: camera)
        }
    }

    /// One view per registered image of `reconstruction`, in image id order, with its camera's
    /// focal lengths, principal point and image size, scaled so that the longer side is
    /// `longerSide` when given. Distortion is ignored: the render is what a pinhole camera sees,
    /// i.e. the undistorted photo. The file is the image's name with `.png` for its extension
    /// (folders in the name are kept).
    /// - Parameter nearDepth: geometry nearer than this is clipped away.
    /// - Throws: ``RenderViewsError`` for a camera whose size is not 1 to ``largestSide`` pixels
    ///   a side (naming `cameras.txt`), a fisheye camera, a name that escapes the output folder,
    ///   or two images whose renders would share a file.
    public static func cameras(of reconstruction: Reconstruction, longerSide: Int?, nearDepth: Double) throws -> [View] {
        for camera in reconstruction.cameras.values.sorted(by: { $0.id < $1.id })
        where !(1...largestSide).contains(camera.width) || !(1...largestSide).contains(camera.height) {
            throw RenderViewsError(file: "cameras.txt", message: "camera \(camera.id) is \(camera.width) x \(camera.height) px; "
                                   + "a render is 1 to \(largestSide) px a side")
        }
        var views: [View] = []
        var used: [String: String] = [:]
        for id in reconstruction.registeredImageIDs {
            guard let image = reconstruction.images[id], let pose = image.camFromWorld,
                  let camera = reconstruction.cameras[image.cameraID] else { continue }
            guard !camera.model.isFisheye else {
                throw RenderViewsError(message: "image \(image.name): camera \(camera.id) is a fisheye (\(camera.model.name)); only pinhole-family cameras can be rendered")
            }
            let components = image.name.split(separator: "/").map(String.init)
            guard !components.isEmpty, !image.name.hasPrefix("/"), !components.contains(where: { $0 == ".." || $0 == "." }) else {
                throw RenderViewsError(message: "image \(image.name): its name leaves the output folder")
            }
            let fileName = (image.name as NSString).deletingPathExtension + ".png"
            if let other = used[fileName] {
                throw RenderViewsError(message: "images \(other) and \(image.name) would both render to \(fileName)")
            }
            used[fileName] = image.name
            views.append(View(fileName: fileName,
                              camera: pinhole(width: camera.width, height: camera.height, focalLengths: camera.focalLengths,
                                              principalPoint: camera.principalPoint, camFromWorld: pose,
                                              longerSide: longerSide, nearDepth: nearDepth)))
        }
        return views
    }

    /// A pinhole camera with an image's intrinsics, scaled so that its longer side is
    /// `longerSide` pixels (nil: the image's own size).
    public static func pinhole(width: Int, height: Int, focalLengths: SIMD2<Double>, principalPoint: SIMD2<Double>,
                               camFromWorld: Rigid3, longerSide: Int?, nearDepth: Double) -> RenderCamera {
        let scale = longerSide.map { Double($0) / Double(max(1, width, height)) } ?? 1
        let scaledWidth = max(1, Int((Double(width) * scale).rounded()))
        let scaledHeight = max(1, Int((Double(height) * scale).rounded()))
        let s = SIMD2(Double(scaledWidth) / Double(width), Double(scaledHeight) / Double(height))
        return RenderCamera(width: scaledWidth, height: scaledHeight, focalLengths: focalLengths * s,
                            principalPoint: principalPoint * s, camFromWorld: camFromWorld, nearDepth: nearDepth)
    }

    /// The pose of a camera at `eye` looking at `target` with +Y up in the image (COLMAP axes:
    /// x right, y down, z forward). Straight up or down, +Z is taken as the image's up instead.
    public static func lookAt(_ target: SIMD3<Double>, from eye: SIMD3<Double>) -> Rigid3 {
        let forward = (target - eye) / max(length(target - eye), 1e-300)
        var up = SIMD3<Double>(0, 1, 0)
        if length(cross(forward, up)) < 1e-9 { up = SIMD3(0, 0, 1) }
        let right = cross(forward, up) / length(cross(forward, up))
        let down = cross(forward, right)
        let rotation = Matrix3(rows: right, down, forward)
        return Rigid3(rotation: rotation, translation: -(rotation * eye))
    }
}

/// A view that cannot be rendered, as one line.
public struct RenderViewsError: Error, CustomStringConvertible, Equatable {
    /// The model's file at fault (`cameras.txt`), when one is.
    public let file: String?
    public let message: String
    public init(file: String? = nil, message: String) {
        self.file = file
        self.message = message
    }
    public var description: String { file.map { "\($0): \(message)" } ?? message }
}
