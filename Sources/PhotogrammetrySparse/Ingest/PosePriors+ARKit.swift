import Foundation
import PhotogrammetryCore

extension PosePriors {
    /// The priors of a room scan's keyframes: each matched frame's pose and intrinsics, turned
    /// as its video is for display, so that they are of the keyframe image as written.
    ///
    /// ARKit gives intrinsics in pixels of the camera's full frame, which a video may downscale:
    /// they are taken as of the video's coded frame when their principal point is within 10 % of
    /// its centre, else as of the frame of the same shape whose centre it is (the video
    /// downscaled), else left out (the pose is still a prior).
    public init(scan: ARKitScan, images: [CaptureImage]) {
        var byName: [String: Prior] = [:]
        for image in images {
            guard let index = scan.frameOfImage[image.name], let coded = scan.codedSizeOfImage[image.name] else { continue }
            let frame = scan.frames.frames[index]
            var pose = frame.camFromWorld
            var camera = Self.camera(frame.intrinsics, codedWidth: coded.width, codedHeight: coded.height)
            for _ in 0..<((((scan.rotationOfImage[image.name] ?? 0) / 90) % 4) + 4) % 4 {
                pose = Self.turnedClockwise(pose)
                camera = camera.map(Self.turnedClockwise)
            }
            byName[image.name] = Prior(camFromWorld: pose, camera: camera)
        }
        var hash = StableHash()
        hash.add("arkit matched by \(scan.matchedBy)")
        hash.add(ContentDigest.file(scan.framesFile))
        self.init(file: scan.framesFile, byName: byName, unmatchedFrames: 0, digest: hash.hex)
    }

    /// A pinhole camera of ARKit's intrinsics (fx, fy, cx, cy) in the frame they fit (see the initializer).
    static func camera(_ k: SIMD4<Double>, codedWidth: Int, codedHeight: Int) -> Camera? {
        let w = Double(codedWidth), h = Double(codedHeight)
        let sx = k[2] / (w / 2), sy = k[3] / (h / 2)
        var scale = 1.0
        if abs(sx - 1) > 0.1 || abs(sy - 1) > 0.1 {
            guard abs(sx / sy - 1) <= 0.05 else { return nil }
            scale = (sx + sy) / 2
        }
        return Camera(id: CameraID(1), model: .pinhole, width: Int((w * scale).rounded()), height: Int((h * scale).rounded()),
                      params: [k[0], k[1], k[2], k[3]])
    }

    /// `camFromWorld` of the same camera with its image turned 90° clockwise: the new x axis is
    /// the old -y, the new y the old x (pixel (x, y) goes to (height - y, x)).
    static func turnedClockwise(_ camFromWorld: Rigid3) -> Rigid3 {
        let turn = Matrix3(rows: SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1))
        return Rigid3(rotation: turn * camFromWorld.rotation, translation: turn * camFromWorld.translation)
    }

    /// A pinhole camera with its image turned 90° clockwise.
    static func turnedClockwise(_ camera: Camera) -> Camera {
        let p = camera.params
        return Camera(id: camera.id, model: .pinhole, width: camera.height, height: camera.width,
                      params: [p[1], p[0], Double(camera.height) - p[3], p[2]])
    }
}
