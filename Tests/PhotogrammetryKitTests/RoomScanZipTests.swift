import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A room scan zipped as room-scanning SDKs export it (`video.mp4`, `arkitData.json`,
/// `config.json`, `allDepthFrames.bin`), built here from the videos of templeRing-12's photos
/// (`Datasets/video`) and templeRing-12's true cameras written in ARKit's axes: each keyframe gets
/// its true pose and intrinsics as priors and its depth frame, and the run ends in the scan's metres.
final class RoomScanZipTests: XCTestCase {
    static let videos = Repository.datasets.appendingPathComponent("video")
    static let dataset = Repository.datasets.appendingPathComponent("templeRing-12")
    static let depthSize = (width: 64, height: 48)

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-roomscan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// templeRing-12's true poses by photo, in name order, and its one camera.
    private func truth() throws -> (poses: [Rigid3], camera: Camera) {
        let model = try Reconstruction.readColmapText(from: Self.dataset.appendingPathComponent("gt_sparse"))
        let images = model.images.values.sorted { $0.name < $1.name }
        return (images.map { $0.camFromWorld! }, try XCTUnwrap(model.cameras.values.first))
    }

    /// How the test writes a matrix.
    enum Layout { case flatColumns, nestedRows }

    /// ARKit's camera-to-world of an OpenCV world-to-camera pose: the camera's y and z axes
    /// turned round (ARKit's camera looks down its -z with y up), as a 4x4 in rows.
    static func arkitCamToWorld(_ camFromWorld: Rigid3) -> [[Double]] {
        let r = camFromWorld.rotation.transposed.rows, c = camFromWorld.centerInWorld
        return [[r.0.x, -r.0.y, -r.0.z, c.x], [r.1.x, -r.1.y, -r.1.z, c.y], [r.2.x, -r.2.y, -r.2.z, c.z], [0, 0, 0, 1]]
    }

    static func written(_ rows: [[Double]], _ layout: Layout) -> Any {
        switch layout {
        case .nestedRows: return rows
        case .flatColumns: return (0..<rows.count).flatMap { c in rows.map { $0[c] } }
        }
    }

    /// `arkitData.json` of `frames` video frames, frame i showing photo i / `held`.
    static func arkitData(frames: Int, held: Int, poses: [Rigid3], camera: Camera, layout: Layout,
                          numbers: Bool = true, timestamps: Bool = true) throws -> Data {
        let p = camera.params
        let k = [[p[0], 0, p[2]], [0, p[1], p[3]], [0, 0, 1]]
        let list: [[String: Any]] = (0..<frames).map { i in
            var frame: [String: Any] = ["cameraTransform": written(arkitCamToWorld(poses[i / held]), layout),
                                        "cameraIntrinsics": written(k, layout), "exposureDuration": 0.01]
            if numbers { frame["frameNumber"] = i }
            if timestamps { frame["frameTimestamp"] = 5000.25 + Double(i) / 10 }
            return frame
        }
        return try JSONSerialization.data(withJSONObject: list)
    }

    /// Depth frames of 64 x 48: frame i, pixel (x, y) holds 1 + i / 100 + x / 1000 + y / 100000 metres.
    static func depthFrames(_ count: Int) -> Data {
        var data = Data()
        for i in 0..<count {
            for y in 0..<depthSize.height {
                for x in 0..<depthSize.width {
                    withUnsafeBytes(of: depthValue(frame: i, x: x, y: y).bitPattern.littleEndian) { data.append(contentsOf: $0) }
                }
            }
        }
        return data
    }

    /// Confidence frames of 64 x 48: frame i, pixel (x, y) holds (i + x + 2 y) % 3.
    static func confidenceFrames(_ count: Int) -> Data {
        Data((0..<count).flatMap { i in
            (0..<depthSize.height).flatMap { y in (0..<depthSize.width).map { x in confidenceValue(frame: i, x: x, y: y) } }
        })
    }

    static func confidenceValue(frame: Int, x: Int, y: Int) -> UInt8 { UInt8((frame + x + 2 * y) % 3) }

    static func depthValue(frame: Int, x: Int, y: Int) -> Float {
        Float(1 + Double(frame) / 100 + Double(x) / 1000 + Double(y) / 100_000)
    }

    static let config = Data(#"{"depthWidth": 64, "depthHeight": 48, "appVersion": "7.1", "scanType": {"room": true}}"#.utf8)

    /// A zip of `video` as `video.mp4` with the given sidecars, in a folder as the SDK zips it.
    private func scanZip(_ work: URL, video: URL, files: [(String, Data)]) throws -> URL {
        let zip = work.appendingPathComponent("scan.zip")
        try BadInputs.writeZip(zip, files: [("scan/video.mp4", video)], data: files.map { ("scan/" + $0.0, $0.1) })
        return zip
    }

    func testEachKeyframeGetsItsTruePoseIntrinsicsAndDepthFrame() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        let archive = try scanZip(work, video: Self.videos.appendingPathComponent("templeRing-12.mp4"), files: [
            ("arkitData.json", try Self.arkitData(frames: 36, held: 3, poses: poses, camera: camera, layout: .flatColumns)),
            ("config.json", Self.config), ("allDepthFrames.bin", Self.depthFrames(36))])
        let capture = try CaptureLoader.load(input: archive, workspace: work.appendingPathComponent("work"))
        XCTAssertEqual(capture.images.count, 11)
        let scan = try XCTUnwrap(try ARKitScan.discover(in: capture))
        XCTAssertEqual(scan.matchedBy, "frameNumber")
        XCTAssertEqual(scan.frames.poseOrder, .columns)
        let priors = PosePriors(scan: scan, images: capture.images)
        XCTAssertEqual(priors.byName.count, 11, "every keyframe matched")
        let depth = CaptureDepth.discover(in: capture).adding(scan)
        for (image, keyframe) in zip(capture.images, try XCTUnwrap(capture.video).keyframes) {
            let prior = try XCTUnwrap(priors.byName[image.name])
            let pose = poses[keyframe.frame / 3]
            XCTAssertLessThan(Rotation.angleDegrees(between: prior.camFromWorld.rotation, and: pose.rotation), 1e-5, "degrees: acos near 1 floors the measure")
            XCTAssertLessThan(length(prior.camFromWorld.translation - pose.translation), 1e-9)
            XCTAssertEqual(prior.camera?.model, .pinhole)
            XCTAssertEqual(prior.camera?.params, camera.params)
            XCTAssertEqual(prior.camera.map { [$0.width, $0.height] }, [640, 480])
            guard case .depth(let frame) = depth.load(image) else { return XCTFail("\(image.name): no depth frame") }
            XCTAssertEqual([frame.width, frame.height], [64, 48])
            XCTAssertEqual(frame.metres[5 * 64 + 7], Self.depthValue(frame: keyframe.frame, x: 7, y: 5))
        }
        XCTAssertNotEqual(depth.digest(of: capture.images, threads: 1), "")
    }

    func testRowsNestedAndTimestampsAloneGiveTheSamePriors() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        var priors: [PosePriors] = []
        for (n, (layout, numbers)) in [(Layout.flatColumns, true), (.nestedRows, false)].enumerated() {
            let archive = try scanZip(work, video: Self.videos.appendingPathComponent("templeRing-12.mp4"), files: [
                ("arkitData.json", try Self.arkitData(frames: 36, held: 3, poses: poses, camera: camera, layout: layout, numbers: numbers))])
            let capture = try CaptureLoader.load(input: archive, workspace: work.appendingPathComponent("work\(n)"))
            let scan = try XCTUnwrap(try ARKitScan.discover(in: capture))
            XCTAssertEqual(scan.matchedBy, numbers ? "frameNumber" : "frameTimestamp")
            XCTAssertEqual(scan.frames.poseOrder, numbers ? .columns : .rows)
            XCTAssertNil(scan.depth)
            priors.append(PosePriors(scan: scan, images: capture.images))
            try FileManager.default.removeItem(at: archive)
        }
        XCTAssertEqual(priors[0].byName.count, 11)
        XCTAssertEqual(priors[0].byName, priors[1].byName)
    }

    /// A phone held upright: the video is coded in the sensor's landscape frame with a display
    /// rotation; ARKit's pose, intrinsics and depth are of the sensor's frame. The priors are of
    /// the upright keyframes: a point projects where the turned photo shows it.
    func testARotatedVideosPriorsAndDepthAreOfTheUprightFrames() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        let archive = try scanZip(work, video: Self.videos.appendingPathComponent("templeRing-rot90.mov"), files: [
            ("arkitData.json", try Self.arkitData(frames: 8, held: 2, poses: poses, camera: camera, layout: .flatColumns)),
            ("config.json", Self.config), ("allDepthFrames.bin", Self.depthFrames(8)),
            ("allConfidenceFrames.bin", Self.confidenceFrames(8))])
        let capture = try CaptureLoader.load(input: archive, workspace: work.appendingPathComponent("work"))
        let scan = try XCTUnwrap(try ARKitScan.discover(in: capture))
        let priors = PosePriors(scan: scan, images: capture.images)
        let depth = CaptureDepth.discover(in: capture).adding(scan)
        XCTAssertFalse(capture.images.isEmpty)
        for (image, keyframe) in zip(capture.images, try XCTUnwrap(capture.video).keyframes) {
            XCTAssertEqual([image.width, image.height], [480, 640])
            let prior = try XCTUnwrap(priors.byName[image.name])
            let upright = try XCTUnwrap(prior.camera)
            XCTAssertEqual([upright.width, upright.height], [480, 640])
            let pose = poses[keyframe.frame / 2]
            for (x, y) in [(-0.05, 0.02), (0.03, -0.04), (0.0, 0.0)] {
                let world = pose.inverse.apply(SIMD3(x, y, 0.6))
                let photo = try XCTUnwrap(camera.project(pose.apply(world)))
                let turned = try XCTUnwrap(upright.project(prior.camFromWorld.apply(world)))
                // Turned clockwise, the photo's (u, v) is shown at (480 - v, u).
                XCTAssertEqual(turned.x, 480 - photo.y, accuracy: 1e-6)
                XCTAssertEqual(turned.y, photo.x, accuracy: 1e-6)
            }
            guard case .depth(let frame) = depth.load(image) else { return XCTFail("\(image.name): no depth frame") }
            XCTAssertEqual([frame.width, frame.height], [48, 64])
            // Depth pixel (x, y) of the sensor's frame is shown at (47 - y, x).
            XCTAssertEqual(frame.metres[7 * 48 + (47 - 5)], Self.depthValue(frame: keyframe.frame, x: 7, y: 5))
            XCTAssertEqual(frame.confidence?[7 * 48 + (47 - 5)], Self.confidenceValue(frame: keyframe.frame, x: 7, y: 5),
                           "the confidence turns with its depth")
        }
    }

    func testBadSidecarsAreRefusedInOneLineNamingTheFile() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        let good = try Self.arkitData(frames: 36, held: 3, poses: poses, camera: camera, layout: .flatColumns)
        let text = try XCTUnwrap(String(data: good, encoding: .utf8))
        let cases: [(files: [(String, Data)], file: String, says: String)] = [
            ([("arkitData.json", Data("[{\"cameraTransform\": [1, 0".utf8))], "arkitData.json", "not a JSON array"),
            ([("arkitData.json", Data(#"[{"cameraTransform": [1, 0, 0, 0, 1, 0, 0, 0, 1], "cameraIntrinsics": [1, 0, 0, 0, 1, 0, 0, 0, 1], "frameNumber": 0}]"#.utf8))],
             "arkitData.json", "frame 0: cameraTransform is not a 4x4 matrix"),
            ([("arkitData.json", Data(text.replacingOccurrences(of: "\"cameraTransform\":[", with: "\"cameraTransform\":[\"nan\",").utf8))],
             "arkitData.json", "cameraTransform is not a 4x4 matrix of finite numbers"),
            ([("arkitData.json", good), ("allDepthFrames.bin", Self.depthFrames(35))], "allDepthFrames.bin",
             "is not 36 frames (one per arkitData.json frame) of 256x192 float32"),
            ([("arkitData.json", good), ("config.json", Data("{depthWidth: 64}".utf8)), ("allDepthFrames.bin", Self.depthFrames(36))],
             "config.json", "not a JSON object"),
            ([("arkitData.json", good), ("config.json", Self.config), ("allDepthFrames.bin", Self.depthFrames(36)),
              ("allConfidenceFrames.bin", Self.confidenceFrames(35))],
             "allConfidenceFrames.bin", "is not 36 frames of 64x48 one-byte confidences"),
        ]
        for (n, item) in cases.enumerated() {
            let folder = work.appendingPathComponent("case\(n)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let archive = try scanZip(folder, video: Self.videos.appendingPathComponent("templeRing-12.mp4"), files: item.files)
            let capture = try CaptureLoader.load(input: archive, workspace: folder.appendingPathComponent("work"))
            XCTAssertThrowsError(try ARKitScan.discover(in: capture), "case \(n)") { error in
                guard case PipelineError.invalidInput(let message) = error else { return XCTFail("case \(n): \(error)") }
                XCTAssertTrue(message.contains("/scan/\(item.file): "), "case \(n): \(message)")
                XCTAssertTrue(message.contains(item.says), "case \(n): \(message)")
                XCTAssertFalse(message.contains("\n"), "case \(n): one line")
            }
        }
    }

    /// The scan's priors are the run's unless `--priors none`, which leaves its depth frames unread too.
    func testPriorsNoneIgnoresTheScan() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        let archive = try scanZip(work, video: Self.videos.appendingPathComponent("templeRing-12.mp4"), files: [
            ("arkitData.json", try Self.arkitData(frames: 36, held: 3, poses: poses, camera: camera, layout: .flatColumns)),
            ("config.json", Self.config), ("allDepthFrames.bin", Self.depthFrames(36))])
        let capture = try CaptureLoader.load(input: archive, workspace: work.appendingPathComponent("work"))
        var options = IngestStage.Options()
        let stage = IngestStage(options: options)
        let scan = try stage.resolveScan(capture)
        XCTAssertEqual(try stage.resolvePriors(capture, scan: scan)?.byName.count, 11)
        XCTAssertEqual(try stage.resolvePriors(capture, scan: scan)?.file.lastPathComponent, "arkitData.json")
        options.priors = .disabled
        let disabled = IngestStage(options: options)
        XCTAssertNil(try disabled.resolveScan(capture))
        XCTAssertNil(try disabled.resolvePriors(capture, scan: nil))
    }

    /// The whole run on a scan zip: the keyframes register, and the model is in the scan's frame
    /// and metres (templeRing-12's true frame), nothing written beside the zip.
    func testTheScanZipReconstructsInItsFrameAndMetres() throws {
        let (poses, camera) = try truth()
        let work = try temporaryDirectory()
        let archive = try scanZip(work, video: Self.videos.appendingPathComponent("templeRing-12.mp4"), files: [
            ("arkitData.json", try Self.arkitData(frames: 36, held: 3, poses: poses, camera: camera, layout: .flatColumns)),
            ("config.json", Self.config)])
        let before = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let output = work.appendingPathComponent("out")
        let report = try ReconstructionPipeline(input: archive, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesRegistered, 11)
        XCTAssertEqual(report.scaleSource, "pose_priors")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), (before + ["out"]).sorted())
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let keyframes = Dictionary(uniqueKeysWithValues: try XCTUnwrap(report.video).keyframes.map { ($0.image, $0.frame) })
        var sum = 0.0, worstAngle = 0.0
        for image in model.images.values {
            let truth = poses[try XCTUnwrap(keyframes[image.name]) / 3]
            sum += length(image.camFromWorld!.centerInWorld - truth.centerInWorld)
            worstAngle = max(worstAngle, Rotation.angleDegrees(between: image.camFromWorld!.rotation, and: truth.rotation))
        }
        XCTAssertLessThan(sum / Double(model.images.count), 0.002, "mean centre error in metres, the cameras 0.6 m from the temple")
        XCTAssertLessThan(worstAngle, 1.0, "degrees, as with priors beside photos (PosePriorsEndToEndTests)")
    }
}
