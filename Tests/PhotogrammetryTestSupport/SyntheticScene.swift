import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// The library's seeded generator (SplitMix64, identical on every platform), with the draws
/// synthetic scenes need.
package typealias SplitMix64 = SeededGenerator

extension SeededGenerator {
    /// Uniform in [0, 1).
    package mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [a, b).
    package mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    /// Standard normal (Box-Muller).
    package mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * Foundation.log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// A vector of three independent standard normals.
    package mutating func gaussian3() -> SIMD3<Double> { SIMD3(gaussian(), gaussian(), gaussian()) }
}

/// A seeded synthetic scene: cameras around a box of points, with the true reconstruction.
///
/// ```
/// var options = SyntheticScene.Options()
/// options.pixelNoise = 0.5
/// let scene = SyntheticScene(options)
/// scene.reconstruction   // ground truth: cameras, registered images with keypoints, tracks
/// ```
/// Every point is observed by every image in front of which it projects inside the frame. The
/// keypoints carry the noise and outliers; point positions and poses are exact.
package struct SyntheticScene {
    package struct Options {
        package init() {}

        package var numImages = 8
        package var numPoints = 200
        package var model = CameraModel.simpleRadial
        /// Camera parameters in COLMAP order; nil picks f = 800, centre of the frame, k = -0.05.
        package var params: [Double]? = nil
        package var width = 1000
        package var height = 800
        /// Cameras on a ring (radius `ringRadius`, heights varying) looking at the origin, or at
        /// random positions on a sphere of that radius when false.
        package var ring = true
        package var ringRadius = 6.0
        /// The ring spans this angle (radians); 2π is a full circle.
        package var ringArc = 2 * Double.pi
        /// Points are uniform in [-h, h] per axis.
        package var pointBoxHalfExtent = SIMD3<Double>(2, 2, 1.5)
        /// Standard deviation of the keypoint noise, in pixels.
        package var pixelNoise = 0.0
        /// Fraction of keypoints replaced by uniform random pixels.
        package var outlierRatio = 0.0
        package var seed: UInt64 = 1
    }

    package let options: Options
    /// The ground truth with noisy keypoints.
    package var reconstruction: Reconstruction
    /// True positions of the points, by id (equal to `reconstruction.points3D` positions).
    package let truePoints: [Point3DID: SIMD3<Double>]
    /// Which keypoints are outliers, per image.
    package let isOutlier: [ImageID: [Bool]]

    /// The one shared camera.
    package var camera: Camera { reconstruction.cameras[CameraID(1)]! }

    /// The images' ids in ascending order.
    package var imageIDs: [ImageID] { reconstruction.images.keys.sorted() }

    package init(_ options: Options = Options()) {
        self.options = options
        var rng = SplitMix64(seed: options.seed)
        let defaults: [CameraModel: [Double]] = [
            .simplePinhole: [800, 500, 400], .pinhole: [800, 810, 500, 400],
            .simpleRadial: [800, 500, 400, -0.05], .radial: [800, 500, 400, -0.05, 0.01],
            .simpleRadialFisheye: [350, 500, 400, 0.04],
        ]
        var params = options.params ?? defaults[options.model]!
        if options.params == nil, options.model != .pinhole {
            params[1] = Double(options.width) / 2
            params[2] = Double(options.height) / 2
        }
        let camera = Camera(id: CameraID(1), model: options.model, width: options.width,
                            height: options.height, params: params)
        var rec = Reconstruction()
        rec.addCamera(camera)

        var poses = [Rigid3]()
        for i in 0..<options.numImages {
            let center: SIMD3<Double>
            if options.ring {
                let a = options.ringArc * Double(i) / Double(options.numImages)
                center = SIMD3(options.ringRadius * cos(a), options.ringRadius * sin(a),
                               1 + 0.5 * sin(3 * a))
            } else {
                center = options.ringRadius * normalize(rng.gaussian3())
            }
            let target = 0.2 * rng.gaussian3()
            poses.append(Self.lookAt(from: center, to: target))
        }
        var positions = [SIMD3<Double>]()
        let h = options.pointBoxHalfExtent
        for _ in 0..<options.numPoints {
            positions.append(SIMD3(rng.uniform(-h.x, h.x), rng.uniform(-h.y, h.y), rng.uniform(-h.z, h.z)))
        }

        // Keypoints per image and tracks per point.
        var keypoints = [[SIMD2<Double>]](repeating: [], count: options.numImages)
        var outliers = [[Bool]](repeating: [], count: options.numImages)
        var tracks = [[TrackElement]](repeating: [], count: options.numPoints)
        for (i, pose) in poses.enumerated() {
            for (j, x) in positions.enumerated() {
                guard let pixel = camera.project(pose.apply(x)),
                      pixel.x >= 0, pixel.y >= 0, pixel.x < Double(options.width),
                      pixel.y < Double(options.height) else { continue }
                var observed = pixel + options.pixelNoise * SIMD2(rng.gaussian(), rng.gaussian())
                let outlier = rng.uniform() < options.outlierRatio
                if outlier {
                    observed = SIMD2(rng.uniform(0, Double(options.width)), rng.uniform(0, Double(options.height)))
                }
                tracks[j].append(TrackElement(imageID: ImageID(i + 1), point2DIndex: keypoints[i].count))
                keypoints[i].append(observed)
                outliers[i].append(outlier)
            }
        }
        var outlierMap = [ImageID: [Bool]]()
        for (i, pose) in poses.enumerated() {
            rec.addImage(Image(id: ImageID(i + 1), name: String(format: "image%03d.png", i + 1),
                               cameraID: camera.id, camFromWorld: pose, points2D: keypoints[i]))
            outlierMap[ImageID(i + 1)] = outliers[i]
        }
        var truth = [Point3DID: SIMD3<Double>]()
        for (j, x) in positions.enumerated() where tracks[j].count >= 2 {
            let id = rec.addPoint3D(Point3D(position: x, track: tracks[j]))
            truth[id] = x
        }
        reconstruction = rec
        truePoints = truth
        isOutlier = outlierMap
    }

    /// A camFromWorld pose at `center` looking at `target`, image y pointing down (world z up).
    package static func lookAt(from center: SIMD3<Double>, to target: SIMD3<Double>) -> Rigid3 {
        let z = normalize(target - center)
        var x = cross(z, SIMD3(0, 0, 1))
        if length(x) < 1e-9 { x = SIMD3(1, 0, 0) }
        x = normalize(x)
        let y = cross(z, x)
        let rotation = Matrix3(rows: x, y, z)
        return Rigid3(rotation: rotation, translation: -(rotation * center))
    }

    /// The scale of the scene: the camera ring's radius.
    package var scale: Double { options.ringRadius }
}
