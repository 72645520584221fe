import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// templeRing-12 with a `transforms.json` beside its images, made from its ground truth and
/// perturbed: the run finds it, matches the pairs it picks and ends in its frame and units.
final class PosePriorsEndToEndTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-priors-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// A working folder holding a copy of templeRing-12's images as `capture/images`, and the
    /// capture's ground truth.
    private func templeRingCapture() throws -> (work: URL, capture: URL, truth: Reconstruction) {
        let work = try temporaryDirectory()
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        let dataset = Repository.datasets.appendingPathComponent("templeRing-12")
        try FileManager.default.copyItem(at: dataset.appendingPathComponent("images"), to: capture.appendingPathComponent("images"))
        return (work, capture, try Reconstruction.readColmapText(from: dataset.appendingPathComponent("gt_sparse")))
    }

    func testPriorsPutTheRunInTheirFrame() throws {
        let (work, capture, truth) = try templeRingCapture()

        // The cameras stand about 0.5 from the temple: 5 mm and 0.5° of noise per axis, as ARKit's
        // 2 cm and 1° in a room of a few metres.
        var priors = truth
        var rng = SplitMix64(seed: 12)
        for (id, image) in truth.images {
            let pose = image.camFromWorld!
            let rotation = Rotation.matrix(angleAxis: (0.5 * .pi / 180) * rng.gaussian3()) * pose.rotation
            let centre = pose.centerInWorld + 0.005 * rng.gaussian3()
            priors.images[id]?.camFromWorld = Rigid3(rotation: rotation, translation: -(rotation * centre))
        }
        try NerfstudioTransforms(priors, filePath: { "images/" + $0 }).jsonData()
            .write(to: capture.appendingPathComponent("transforms.json"))

        var options = ReconstructionOptions()
        options.sparseOnly = true
        let events = EventRecorder()
        let output = work.appendingPathComponent("out")
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: events).run()
        XCTAssertEqual(report.imagesRegistered, 12)
        XCTAssertEqual(report.scaleSource, "pose_priors")
        XCTAssertTrue(events.codes.contains(PipelineEvent.posePriors.code))
        XCTAssertTrue(events.codes.contains(PipelineEvent.priorAlignment.code))
        XCTAssertNotNil(report.metricScale)
        XCTAssertLessThan(try XCTUnwrap(report.metricScaleSpread), 0.1)

        // sparse/ is in the ground truth's frame: no alignment needed.
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let truthByName = Dictionary(uniqueKeysWithValues: truth.images.values.map { ($0.name, $0.camFromWorld!) })
        var sum = 0.0, worstAngle = 0.0
        for image in model.images.values {
            let reference = try XCTUnwrap(truthByName[image.name])
            sum += length(image.camFromWorld!.centerInWorld - reference.centerInWorld)
            worstAngle = max(worstAngle, Rotation.angleDegrees(between: image.camFromWorld!.rotation, and: reference.rotation))
        }
        XCTAssertLessThan(sum / Double(model.images.count), 0.005, "mean centre error in the priors' frame")
        XCTAssertLessThan(worstAngle, 1.0)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json"))) as? [String: Any])
        XCTAssertEqual(json["scale_source"] as? String, "pose_priors")

        // --priors none: the file is ignored, the model in SfM's own frame again.
        options.priors = .disabled
        let unprimed = try ReconstructionPipeline(input: capture, output: work.appendingPathComponent("out-none"), options: options,
                                                  progress: nil).run()
        XCTAssertEqual(unprimed.scaleSource, "none")
        XCTAssertNil(unprimed.metricScale)
    }

    /// Priors whose scale is 3 % off (a tracking drift) and depth images in true metres: the run
    /// stays in the priors' frame (axes and origin) with the depth's scale.
    func testDepthImagesCorrectThePriorsScale() throws {
        let (work, capture, truth) = try templeRingCapture()
        let priorScale = 1.03
        let priors = truth.centresScaled(by: priorScale)
        try NerfstudioTransforms(priors, filePath: { "images/" + $0 }).jsonData()
            .write(to: capture.appendingPathComponent("transforms.json"))
        let truthByName = Dictionary(uniqueKeysWithValues: truth.images.values.map { ($0.name, $0.camFromWorld!) })
        func meanCentreError(_ model: Reconstruction) throws -> Double {
            var sum = 0.0
            for image in model.images.values {
                sum += length(image.camFromWorld!.centerInWorld - (try XCTUnwrap(truthByName[image.name])).centerInWorld)
            }
            return sum / Double(model.images.count)
        }

        var options = ReconstructionOptions()
        options.sparseOnly = true
        let output = work.appendingPathComponent("out")
        let first = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(first.scaleSource, "pose_priors")
        let inPriorUnits = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let offBefore = try meanCentreError(inPriorUnits)
        XCTAssertGreaterThan(offBefore, 0.01, "the priors' 3 % put the cameras centimetres off")

        // Depth in true metres: a metre of the truth is 1.03 of the priors' units.
        try MetricScaleEndToEndTests.writeDepth(of: inPriorUnits, metresPerUnit: 1 / priorScale,
                                                to: capture.appendingPathComponent("depth"))
        let second = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(second.scaleSource, "lidar_depth")
        XCTAssertTrue(second.metricScaleNote?.contains("pose priors' frame") == true, second.metricScaleNote ?? "no note")
        let corrected = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let offAfter = try meanCentreError(corrected)
        XCTAssertLessThan(offAfter, 0.25 * offBefore, "the depth's scale, in the priors' axes and origin")
        XCTAssertEqual(try XCTUnwrap(second.metricScale) / (try XCTUnwrap(first.metricScale)), 1 / priorScale, accuracy: 0.005)
    }

    /// Depth images that give no scale (no depth anywhere) leave the run in the priors' metres,
    /// and the report says so.
    func testDepthWithoutAScaleKeepsThePriorsScale() throws {
        let (work, capture, truth) = try templeRingCapture()
        try NerfstudioTransforms(truth, filePath: { "images/" + $0 }).jsonData()
            .write(to: capture.appendingPathComponent("transforms.json"))
        let depth = capture.appendingPathComponent("depth")
        try FileManager.default.createDirectory(at: depth, withIntermediateDirectories: true)
        for image in truth.images.values {
            let stem = (image.name as NSString).deletingPathExtension
            try TestPNG.writeGrey16([UInt16](repeating: 0, count: 16 * 12), width: 16, height: 12,
                                    to: depth.appendingPathComponent(stem + ".png"))
        }
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let report = try ReconstructionPipeline(input: capture, output: work.appendingPathComponent("out"), options: options,
                                                progress: nil).run()
        XCTAssertEqual(report.scaleSource, "pose_priors")
        XCTAssertNotNil(report.metricScale)
        XCTAssertNil(report.metricScaleNote)
    }
}
