import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Reading `transforms.json` (ours and other tools'): poses in OpenCV axes, intrinsics, errors,
/// and frames matched to image names (``PosePriors``).
final class NerfstudioTransformsReadingTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-priors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testOurFileReadsBackToTheModelsPosesAndCameras() throws {
        var model = SyntheticScene().reconstruction
        model.addCamera(Camera(id: CameraID(2), model: .radial, width: 1000, height: 800, params: [700, 480, 410, -0.1, 0.02]))
        model.images[ImageID(2)]?.cameraID = CameraID(2)
        let data = try NerfstudioTransforms(model, filePath: { "images/" + $0 }).jsonData()
        let frames = try NerfstudioTransforms.parse(data, source: "t.json").posedFrames
        XCTAssertEqual(frames.count, model.registeredImageIDs.count)
        for frame in frames {
            let image = try XCTUnwrap(model.images.values.first { "images/" + $0.name == frame.filePath })
            let truth = image.camFromWorld!
            XCTAssertLessThan(zip(frame.camFromWorld.rotation.rowMajor, truth.rotation.rowMajor).map { abs($0 - $1) }.max()!, 1e-12)
            XCTAssertLessThan(length(frame.camFromWorld.translation - truth.translation), 1e-12)
            let camera = try XCTUnwrap(frame.intrinsics.camera(id: image.cameraID))
            let original = model.cameras[image.cameraID]!
            // SIMPLE_RADIAL comes back as RADIAL with k2 = 0: the same projection.
            let probe = SIMD3(0.3, -0.2, 1.0)
            XCTAssertLessThan(length(SIMD3(camera.project(probe)! - original.project(probe)!, 0)), 1e-9)
            XCTAssertEqual(camera.width, original.width)
        }
    }

    func testOpenGLAxesBecomeOpenCVAxes() throws {
        // An OpenGL camera with the identity rotation at (1, 2, 3) looks down world -z with y up:
        // in OpenCV axes it looks along -z with its image y (down) along world -y.
        let json = """
        {"fl_x": 500, "fl_y": 500, "cx": 320, "cy": 240, "w": 640, "h": 480,
         "frames": [{"file_path": "a.jpg", "transform_matrix": [[1,0,0,1],[0,1,0,2],[0,0,1,3],[0,0,0,1]]}]}
        """
        let frame = try XCTUnwrap(NerfstudioTransforms.parse(Data(json.utf8), source: "t.json").posedFrames.first)
        XCTAssertLessThan(length(frame.camFromWorld.centerInWorld - SIMD3(1, 2, 3)), 1e-12)
        XCTAssertLessThan(length(frame.camFromWorld.viewingDirectionInWorld - SIMD3(0, 0, -1)), 1e-12)
        XCTAssertLessThan(length(frame.camFromWorld.rotation.rows.1 - SIMD3(0, -1, 0)), 1e-12)
        XCTAssertLessThan(length(frame.camFromWorld.rotation.rows.0 - SIMD3(1, 0, 0)), 1e-12)
        XCTAssertEqual(frame.intrinsics.camera(id: CameraID(1))?.model, .pinhole)
    }

    func testOtherToolsFilesAreReadLeniently() throws {
        // Sizes as decimals, no camera_model or colmap_im_id, a 3x4 matrix, a frame's own focal length.
        let json = """
        {"fl_x": 1400.0, "fl_y": 1400.0, "cx": 960.0, "cy": 720.0, "w": 1920.0, "h": 1440.0, "k1": 0.01,
         "applied_transform": [[0,1,0,0],[1,0,0,0],[0,0,-1,0]],
         "frames": [{"file_path": "./images/frame_00001.jpg", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0]]},
                    {"file_path": "images/frame_00002.jpg", "fl_x": 1500, "fl_y": 1500, "k1": 0, "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}
        """
        let frames = try NerfstudioTransforms.parse(Data(json.utf8), source: "t.json").posedFrames
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(frames[0].intrinsics.w, 1920)
        XCTAssertEqual(frames[0].intrinsics.camera(id: CameraID(1))?.model, .radial)
        XCTAssertEqual(frames[1].intrinsics.flX, 1500, "a frame's own value wins")
        XCTAssertEqual(frames[1].intrinsics.cx, 960, "the file's where the frame has none")
        XCTAssertEqual(frames[1].intrinsics.camera(id: CameraID(1))?.model, .pinhole)
    }

    func testBadFilesAreOneLineNamingThem() throws {
        let cases: [(String, String)] = [
            ("not json", "not a JSON object"),
            ("{\"fl_x\": 1}", "no \"frames\" array"),
            ("{\"frames\": [{\"file_path\": \"a.jpg\"}]}", "transform_matrix is not a 4x4 matrix"),
            ("{\"frames\": [{\"file_path\": \"a.jpg\", \"transform_matrix\": [[2,0,0,0],[0,2,0,0],[0,0,2,0],[0,0,0,1]]}]}", "not orthonormal"),
            ("{\"fl_x\": -5, \"frames\": []}", "fl_x must be positive"),
            ("{\"w\": 10.5, \"frames\": []}", "w is not a positive whole number"),
        ]
        for (json, expected) in cases {
            XCTAssertThrowsError(try NerfstudioTransforms.parse(Data(json.utf8), source: "/x/transforms.json")) { error in
                let text = String(describing: error)
                XCTAssertTrue(text.hasPrefix("/x/transforms.json: "), text)
                XCTAssertTrue(text.contains(expected), "\(text) lacks \(expected)")
                XCTAssertFalse(text.contains("\n"))
            }
        }
    }

    func testFramesAreMatchedToImageNames() throws {
        let matcher = ImageNameMatcher(["frame_00001.jpg", "frame_00002.jpg", "frame_00003.jpg", "sub/a.png", "b.jpg", "b.png"])
        XCTAssertEqual(matcher.match("images/frame_00001.jpg"), "frame_00001.jpg")
        XCTAssertEqual(matcher.match("./IMAGES/Frame_00002.JPG"), "frame_00002.jpg")
        XCTAssertEqual(matcher.match("images/frame_00003.png"), "frame_00003.jpg", "by stem when only one image has it")
        XCTAssertEqual(matcher.match("capture/images/sub/a.png"), "sub/a.png")
        XCTAssertNil(matcher.match("b.heic"), "two images share the stem b")
        XCTAssertNil(matcher.match("images/frame_00009.jpg"))
    }

    func testPriorsOfACaptureAndTheirDiscovery() throws {
        let root = try temporaryDirectory()
        let images = root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let capture = Capture(imageRoot: images, root: root, images: ["0001.jpg", "0002.jpg", "0003.jpg"].map {
            CaptureImage(name: $0, url: images.appendingPathComponent($0), width: 640, height: 480, exif: MetricScaleTests.noExif)
        }, rejected: [])
        XCTAssertNil(PosePriors.discover(in: capture))
        let json = """
        {"fl_x": 500, "w": 640, "h": 480, "frames": [
         {"file_path": "images/0001.jpg", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]},
         {"file_path": "images/0002.jpg", "transform_matrix": [[1,0,0,1],[0,1,0,0],[0,0,1,0],[0,0,0,1]]},
         {"file_path": "images/0099.jpg", "transform_matrix": [[1,0,0,2],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}
        """
        let url = root.appendingPathComponent("transforms.json")
        try Data(json.utf8).write(to: url)
        XCTAssertEqual(PosePriors.discover(in: capture)?.standardizedFileURL, url.standardizedFileURL)
        let priors = try PosePriors.load(url, images: capture.images)
        XCTAssertEqual(priors.byName.count, 2)
        XCTAssertEqual(priors.unmatchedFrames, 1)
        let poses = priors.poses(for: capture.images)
        XCTAssertNil(poses[2])
        let second = try XCTUnwrap(poses[1])
        XCTAssertLessThan(length(second.centerInWorld - SIMD3<Double>(1, 0, 0)), 1e-12)
        XCTAssertEqual(priors.byName["0001.jpg"]?.camera?.focalLengths, SIMD2(500, 500))

        try Data("{\"frames\": [{\"file_path\": \"x.jpg\", \"transform_matrix\": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]}".utf8).write(to: url)
        XCTAssertThrowsError(try PosePriors.load(url, images: capture.images)) { error in
            XCTAssertTrue(String(describing: error).contains("names an image of the capture"))
        }
    }
}
