import Foundation
import PhotogrammetryCore

/// Pinhole intrinsics the user gives with `--intrinsics fx,fy,cx,cy`: held fixed throughout.
public struct FixedIntrinsics: Sendable, Equatable {
    public var fx, fy, cx, cy: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        (self.fx, self.fy, self.cx, self.cy) = (fx, fy, cx, cy)
    }

    /// Why `--intrinsics` text is not four intrinsics, one line.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Parses "fx,fy,cx,cy" strictly: exactly four comma-separated numbers, all finite, fx and
    /// fy above zero. Anything else (a fifth value, a word, `inf`, `nan`, an empty field) is an
    /// error that names the value at fault, never a guess at what was meant.
    public init(parsing text: String) throws {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count == 4 else {
            throw ParseError(description: "\(fields.count) value\(fields.count == 1 ? "" : "s")")
        }
        let names = ["fx", "fy", "cx", "cy"]
        var values: [Double] = []
        for (name, field) in zip(names, fields) {
            guard let value = Double(field) else {
                throw ParseError(description: field.isEmpty ? "\(name) is empty" : "\(name) \"\(field)\" is not a number")
            }
            guard value.isFinite else { throw ParseError(description: "\(name) \"\(field)\" is not a finite number") }
            values.append(value)
        }
        for k in 0..<2 where values[k] <= 0 {
            throw ParseError(description: "\(names[k]) \(fields[k]) is not above zero")
        }
        self.init(fx: values[0], fy: values[1], cx: values[2], cy: values[3])
    }
}

/// The cameras of a capture: which images share intrinsics, and the starting focal lengths.
public struct CameraSetup: Sendable {
    /// One camera per group of images that share them.
    public var cameras: [Camera]
    /// For each capture image, its camera's id.
    public var cameraOfImage: [CameraID]
    /// Cameras whose focal length came from the user, the pose priors or EXIF rather than a guess.
    public var hasPrior: [CameraID: Bool]
    /// Whether the user fixed the intrinsics (no refinement).
    public var isFixed: Bool

    /// Below this focal length (a fraction of the longer side) a lens is taken for a fisheye:
    /// a rectilinear lens that short would span more than 118° across the longer side, beyond
    /// the widest phone lenses (ultra-wide: 0.36, which phones correct to rectilinear); action
    /// cameras and fisheye add-ons live below it and keep their fisheye projection. 0.3.
    public static let fisheyeFocalFraction = 0.3

    /// Groups images into cameras and sets their starting intrinsics.
    ///
    /// Images share a camera when they share size and EXIF make, model and focal length; images
    /// without any EXIF camera identity share one only if all of them look alike (a capture from one
    /// device), else each gets its own. The focal length comes from `fixed`, else the pose
    /// priors' intrinsics (ARKit calibrates every frame: the median over the camera's images,
    /// with their principal point and first distortion term), else EXIF (35 mm equivalent, else
    /// focal length and focal-plane resolution), else 1.2 x the longer side (COLMAP's guess);
    /// self-calibration then refines all but `fixed`.
    ///
    /// - Parameters:
    ///   - model: the model to self-calibrate; nil picks SIMPLE_RADIAL, or SIMPLE_RADIAL_FISHEYE
    ///     for a camera whose focal length (priors' or EXIF) is below ``fisheyeFocalFraction``
    ///     of the longer side, or the priors' fisheye.
    ///   - priors: pose priors whose intrinsics, where a frame gives them, start its camera.
    public init(capture: Capture, fixed: FixedIntrinsics?, model requested: CameraModel? = nil,
                priors: PosePriors? = nil) {
        let keys = capture.images.map { image -> String in
            "\(image.width)x\(image.height)|\(image.exif.make)|\(image.exif.model)|\(image.exif.focalLengthMM)"
        }
        let allAlike = Set(keys).count == 1
        var cameraOfKey: [String: CameraID] = [:]
        var imagesOfCamera: [[CaptureImage]] = []
        var cameraOfImage: [CameraID] = []
        for (i, image) in capture.images.enumerated() {
            let identified = !image.exif.make.isEmpty || !image.exif.model.isEmpty
            let key = (allAlike || identified || fixed != nil) ? keys[i] : "image \(i)"
            if let id = cameraOfKey[key] {
                cameraOfImage.append(id)
                imagesOfCamera[id.rawValue - 1].append(image)
                continue
            }
            let id = CameraID(imagesOfCamera.count + 1)
            cameraOfKey[key] = id
            cameraOfImage.append(id)
            imagesOfCamera.append([image])
        }
        var cameras: [Camera] = []
        var hasPrior: [CameraID: Bool] = [:]
        for (n, images) in imagesOfCamera.enumerated() {
            let id = CameraID(n + 1), image = images[0]
            let w = Double(image.width), h = Double(image.height)
            if let k = fixed {
                cameras.append(Camera(id: id, model: .pinhole, width: image.width, height: image.height,
                                      params: [k.fx, k.fy, k.cx, k.cy]))
                hasPrior[id] = true
                continue
            }
            let fromPriors = priors.flatMap { Self.priorIntrinsics(images, $0) }
            let prior = fromPriors?.focal ?? Self.exifFocalLength(image)
            hasPrior[id] = prior != nil
            let f = prior ?? 1.2 * max(w, h)
            let fisheye = fromPriors?.fisheye ?? ((prior ?? .infinity) < Self.fisheyeFocalFraction * max(w, h))
            let model = requested ?? (fisheye ? .simpleRadialFisheye : .simpleRadial)
            var params = [f, fromPriors?.cx ?? w / 2, fromPriors?.cy ?? h / 2]
            if model == .simpleRadial || model == .simpleRadialFisheye { params.append(fromPriors?.k1 ?? 0) }
            if model == .radial { params += [fromPriors?.k1 ?? 0, 0] }
            cameras.append(Camera(id: id, model: model, width: image.width, height: image.height, params: params))
        }
        self.cameras = cameras
        self.cameraOfImage = cameraOfImage
        self.hasPrior = hasPrior
        self.isFixed = fixed != nil
    }

    /// The starting intrinsics the pose priors give a camera's images, scaled to the images'
    /// size (an app may write the intrinsics of the sensor's full frame beside downscaled
    /// images): medians over the images whose frame has intrinsics of the same aspect ratio;
    /// nil when none has.
    static func priorIntrinsics(_ images: [CaptureImage], _ priors: PosePriors)
        -> (focal: Double, cx: Double, cy: Double, k1: Double, fisheye: Bool)? {
        var focals: [Double] = [], cxs: [Double] = [], cys: [Double] = [], k1s: [Double] = [], fisheyes = 0
        for image in images {
            guard let camera = priors.byName[image.name]?.camera else { continue }
            let sx = Double(image.width) / Double(camera.width), sy = Double(image.height) / Double(camera.height)
            // A frame of another shape (rotated, cropped) says nothing about these pixels.
            guard abs(sx - sy) <= 0.01 * sx else { continue }
            let p = camera.params
            switch camera.model {
            case .pinhole:
                focals.append(sx * (p[0] + p[1]) / 2); cxs.append(sx * p[2]); cys.append(sy * p[3]); k1s.append(0)
            case .simpleRadial, .simpleRadialFisheye, .radial:
                focals.append(sx * p[0]); cxs.append(sx * p[1]); cys.append(sy * p[2]); k1s.append(p[3])
                if camera.model == .simpleRadialFisheye { fisheyes += 1 }
            default:
                continue
            }
        }
        guard let focal = focals.median(), let cx = cxs.median(), let cy = cys.median(), let k1 = k1s.median()
        else { return nil }
        return (focal, cx, cy, k1, 2 * fisheyes > focals.count)
    }

    /// The focal length in pixels EXIF implies, if it says enough.
    static func exifFocalLength(_ image: CaptureImage) -> Double? {
        let longSide = Double(max(image.width, image.height))
        if image.exif.focalLength35mm > 0 {
            // 35 mm equivalent: the longer side of a 36 x 24 mm frame.
            return image.exif.focalLength35mm / 36 * longSide
        }
        if image.exif.focalLengthMM > 0 && image.exif.focalPlaneXResolution > 0 && image.exif.focalPlaneUnitMM > 0 {
            let pixelsPerMM = image.exif.focalPlaneXResolution / image.exif.focalPlaneUnitMM
            var f = image.exif.focalLengthMM * pixelsPerMM
            let storedWidth = Double(max(image.exif.pixelWidth, image.exif.pixelHeight))
            if storedWidth > 0 { f *= longSide / storedWidth }
            return f
        }
        return nil
    }
}
