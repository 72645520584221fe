import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// `transforms.json` in nerfstudio's convention: names, axes, shared and per-frame intrinsics.
final class NerfstudioTransformsTests: XCTestCase {
    func testPosesRoundTripInOpenGLAxes() throws {
        let model = SyntheticScene().reconstruction
        let transforms = NerfstudioTransforms(model, filePath: { "images/" + $0 })
        let data = try transforms.jsonData()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in ["camera_model", "fl_x", "fl_y", "cx", "cy", "w", "h", "k1", "k2", "p1", "p2", "frames", "applied_transform"] {
            XCTAssertNotNil(object[key], key)
        }
        let frames = try XCTUnwrap(object["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.count, model.registeredImageIDs.count)
        XCTAssertEqual(frames.first?["file_path"] as? String, "images/image001.png")
        XCTAssertNil(frames.first?["fl_x"], "one shared camera: intrinsics once, at the top")

        let read = try JSONDecoder.snakeCase.decode(NerfstudioTransforms.self, from: data)
        XCTAssertEqual(read, transforms, "numbers read back to the same doubles")
        for frame in read.frames {
            let image = try XCTUnwrap(model.images[ImageID(frame.colmapImId)])
            let truth = image.camFromWorld!, pose = NerfstudioTransforms.camFromWorld(openGL: frame.transformMatrix)
            XCTAssertLessThan(zip(pose.rotation.rowMajor, truth.rotation.rowMajor).map { abs($0 - $1) }.max()!, 1e-12)
            XCTAssertLessThan(length(pose.translation - truth.translation), 1e-12)
            // OpenGL axes: the camera looks down its -z column, and image y (down) is -y.
            let m = frame.transformMatrix
            let back = SIMD3(m[0][2], m[1][2], m[2][2]), up = SIMD3(m[0][1], m[1][1], m[2][1])
            XCTAssertLessThan(length(back + truth.viewingDirectionInWorld), 1e-12)
            XCTAssertLessThan(length(up + truth.rotation.rows.1), 1e-12)
            XCTAssertEqual(m[3], [0, 0, 0, 1])
        }
        let camera = model.cameras[CameraID(1)]!
        XCTAssertEqual(read.cameraModel, "OPENCV")
        XCTAssertEqual(read.flX, camera.params[0])
        XCTAssertEqual(read.flY, camera.params[0])
        XCTAssertEqual(read.cx, camera.params[1])
        XCTAssertEqual(read.k1, camera.params[3], "SIMPLE_RADIAL's k as OPENCV's k1")
        XCTAssertEqual(read.k2, 0)
        XCTAssertEqual(read.p1, 0)
    }

    func testCamerasThatDifferGoPerFrame() throws {
        var model = SyntheticScene().reconstruction
        model.addCamera(Camera(id: CameraID(2), model: .radial, width: 1000, height: 800, params: [700, 480, 410, -0.1, 0.02]))
        model.addCamera(Camera(id: CameraID(3), model: .simpleRadialFisheye, width: 1000, height: 800, params: [350, 500, 400, 0.04]))
        model.images[ImageID(2)]?.cameraID = CameraID(2)
        model.images[ImageID(3)]?.cameraID = CameraID(3)
        let read = try JSONDecoder.snakeCase.decode(NerfstudioTransforms.self,
                                                    from: NerfstudioTransforms(model, filePath: { $0 }).jsonData())
        XCTAssertNil(read.flX, "no shared intrinsics")
        let byID = Dictionary(uniqueKeysWithValues: read.frames.map { ($0.colmapImId, $0) })
        XCTAssertEqual(byID[1]?.flX, 800)
        XCTAssertEqual(byID[2]?.cameraModel, "OPENCV")
        XCTAssertEqual(byID[2]?.flX, 700)
        XCTAssertEqual(byID[2]?.cy, 410)
        XCTAssertEqual(byID[2]?.k2, 0.02)
        XCTAssertEqual(byID[3]?.cameraModel, "OPENCV_FISHEYE")
        XCTAssertEqual(byID[3]?.k1, 0.04)
        XCTAssertEqual(byID[3]?.k3, 0)
        XCTAssertNil(byID[3]?.p1)
        XCTAssertEqual(byID[3]?.filePath, "image003.png")
    }
}

extension JSONDecoder {
    /// A decoder of snake-case keys.
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
