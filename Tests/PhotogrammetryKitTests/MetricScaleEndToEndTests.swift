import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// A capture with a `depth/` folder: the run is in metres (`sparse/`, `transforms.json`,
/// report.json's `metric_scale`), resuming the stages before export; `--scale` goes before the
/// depth images and reruns only the metric scale and what follows it.
final class MetricScaleEndToEndTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Quarter-resolution depth PNGs (millimetres) for every registered view of `model`, as if
    /// the model's unit were `metresPerUnit`: each depth pixel the z of the nearest observed
    /// point within 3 depth pixels, 0 beyond.
    static func writeDepth(of model: Reconstruction, metresPerUnit: Double, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for image in model.images.values where image.isRegistered {
            let camera = model.cameras[image.cameraID]!, pose = image.camFromWorld!
            let width = camera.width / 4, height = camera.height / 4
            var samples: [(SIMD2<Double>, Double)] = []
            for (index, id) in image.point3DIDs.enumerated() {
                guard let id, let point = model.points3D[id] else { continue }
                samples.append((image.points2D[index] / 4, pose.apply(point.position).z * metresPerUnit * 1000))
            }
            var millimetres = [UInt16](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let centre = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                    var best = 9.0, depth = 0.0
                    for (p, z) in samples {
                        let d = ((p - centre) * (p - centre)).sum()
                        if d < best { best = d; depth = z }
                    }
                    millimetres[y * width + x] = UInt16(min(max(depth.rounded(), 0), 65535))
                }
            }
            let stem = (image.name as NSString).deletingPathExtension
            try TestPNG.writeGrey16(millimetres, width: width, height: height, to: folder.appendingPathComponent(stem + ".png"))
        }
    }

    func testDepthFolderPutsTheRunInMetres() throws {
        let work = try temporaryDirectory()
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Repository.datasets.appendingPathComponent("templeRing-12/images"),
                                         to: capture.appendingPathComponent("images"))
        let output = work.appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true

        // Without depth: no scale, the keys present.
        let first = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertNil(first.metricScale)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json"))) as? [String: Any])
        XCTAssertTrue(json["metric_scale"] is NSNull)
        XCTAssertTrue(json["metric_scale_spread"] is NSNull)
        XCTAssertEqual(json["scale_source"] as? String, "none")
        let unscaled = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))

        // Depth as if one model unit were 0.0042 m: the rerun resumes up to sparse, then scales.
        let truth = 0.0042
        try Self.writeDepth(of: unscaled, metresPerUnit: truth, to: capture.appendingPathComponent("depth"))
        let events = EventRecorder()
        let second = try ReconstructionPipeline(input: capture, output: output, options: options, progress: events).run()
        XCTAssertEqual(second.stages.filter(\.resumed).map(\.name), ["segmentation", "features", "matching", "sparse"])
        let factor = try XCTUnwrap(second.metricScale)
        XCTAssertEqual(factor / truth, 1, accuracy: 0.02)
        XCTAssertEqual(second.scaleSource, "lidar_depth")
        XCTAssertTrue(events.codes.contains(PipelineEvent.metricScale.code))
        json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json"))) as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(json["metric_scale"] as? Double), factor, accuracy: 1e-12)
        XCTAssertEqual(json["scale_source"] as? String, "lidar_depth")
        XCTAssertLessThan(try XCTUnwrap(json["metric_scale_spread"] as? Double), 0.2)

        // sparse/ is the model times the factor.
        let scaled = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(scaled.registeredImageIDs.count, 12)
        for (id, image) in scaled.images {
            let a = image.camFromWorld!.centerInWorld, b = unscaled.images[id]!.camFromWorld!.centerInWorld * factor
            XCTAssertLessThan(length(a - b), 1e-9 * max(length(b), 1))
        }

        // --scale goes before the depth images: only the metric scale and what follows it run again.
        var userOptions = options
        userOptions.userScale = .factor(2.5)
        let third = try ReconstructionPipeline(input: capture, output: output, options: userOptions, progress: nil).run()
        XCTAssertEqual(third.stages.filter(\.resumed).map(\.name), ["segmentation", "features", "matching", "sparse"])
        XCTAssertEqual(third.scaleSource, "user")
        XCTAssertEqual(third.metricScale, 2.5)
        XCTAssertNil(third.metricScaleSpread)
        XCTAssertTrue(third.metricScaleNote?.contains("the depth images' scale not used") == true, third.metricScaleNote ?? "")
        let user = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        for (id, image) in user.images {
            let a = image.camFromWorld!.centerInWorld, b = unscaled.images[id]!.camFromWorld!.centerInWorld * 2.5
            XCTAssertLessThan(length(a - b), 1e-9 * max(length(b), 1))
        }
        // The same options again resume the metric scale too.
        let fourth = try ReconstructionPipeline(input: capture, output: output, options: userOptions, progress: nil).run()
        XCTAssertTrue(fourth.stages.contains { $0.name == MetricScaleStage.name && $0.resumed })
        XCTAssertEqual(fourth.metricScale, 2.5)
        // Without --scale the depth images set it again, from the checkpoint of the second run.
        let fifth = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(fifth.scaleSource, "lidar_depth")
        XCTAssertEqual(try XCTUnwrap(fifth.metricScale), factor, accuracy: 1e-12)
        try Self.checkTransforms(against: scaled, output: output)
    }

    /// transforms.json holds sparse/'s poses and intrinsics.
    static func checkTransforms(against scaled: Reconstruction, output: URL) throws {
        let transforms = try NerfstudioTransforms.read(from: output.appendingPathComponent("transforms.json"))
        XCTAssertEqual(transforms.frames.count, 12)
        let camera = try XCTUnwrap(scaled.cameras.values.first)
        XCTAssertEqual(transforms.cameraModel, "OPENCV")
        XCTAssertEqual(transforms.flX, camera.focalLengths.x)
        XCTAssertEqual(transforms.cx, camera.principalPoint.x)
        XCTAssertEqual(transforms.cy, camera.principalPoint.y)
        XCTAssertEqual(transforms.k1, camera.radialDistortion.x)
        XCTAssertEqual(transforms.w, camera.width)
        let byName = Dictionary(scaled.images.values.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for frame in transforms.frames {
            XCTAssertTrue(frame.filePath.hasPrefix("images/"), frame.filePath)
            let image = try XCTUnwrap(byName[String(frame.filePath.dropFirst("images/".count))])
            let pose = NerfstudioTransforms.camFromWorld(openGL: frame.transformMatrix), truth = image.camFromWorld!
            let difference = zip(pose.rotation.rowMajor, truth.rotation.rowMajor).map { abs($0 - $1) }.max()!
            XCTAssertLessThan(difference, 1e-9)
            XCTAssertLessThan(length(pose.translation - truth.translation), 1e-9)
        }
    }
}

/// Records the codes of the events a run sends.
final class EventRecorder: ProgressSink, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []
    var codes: [Int] { lock.lock(); defer { lock.unlock() }; return recorded }

    func update(stage: String, done: Int, total: Int) -> Bool { true }
    func finished(stage: String, seconds: Double) {}
    func event(_ event: PipelineEvent, _ message: String, subject: String?) {
        lock.lock()
        recorded.append(event.code)
        lock.unlock()
    }
}
