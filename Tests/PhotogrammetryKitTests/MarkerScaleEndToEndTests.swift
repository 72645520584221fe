import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Datasets/markers-12, a rendered orbit of an object on a board of printed markers with a
/// `markers.json` beside its images: the run is in metres from the markers (camera distances as in
/// the ground truth within 1 %); a known distance between two markers' centres goes before them,
/// rerunning only the metric scale; without the file the run has no scale. With pose priors 3 %
/// off in scale, the markers correct them in the priors' frame. With `--marker-frame` the cameras
/// are where the truth has them in the board's frame.
final class MarkerScaleEndToEndTests: XCTestCase {
    /// The median over camera pairs of their distance in `model` over the same in `truth`.
    func centreDistanceRatio(_ model: Reconstruction, _ truth: Reconstruction) -> Double {
        func centres(_ r: Reconstruction) -> [String: SIMD3<Double>] {
            Dictionary(r.images.values.compactMap { image in image.camFromWorld.map { (image.name, $0.centerInWorld) } },
                       uniquingKeysWith: { a, _ in a })
        }
        let a = centres(model), b = centres(truth)
        let names = Set(a.keys).intersection(b.keys).sorted()
        var ratios: [Double] = []
        for (i, p) in names.enumerated() {
            for q in names[(i + 1)...] { ratios.append(length(a[p]! - a[q]!) / length(b[p]! - b[q]!)) }
        }
        return MetricScale.median(ratios)
    }

    /// markers-12's images and markers.json copied into a fresh folder: the dataset, the folder
    /// and the capture in it.
    private func markerCapture() throws -> (dataset: URL, work: URL, capture: URL) {
        let dataset = Repository.datasets.appendingPathComponent("markers-12")
        let work = try makeBridgeTestDirectory(self)
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        for item in ["images", "markers.json"] {
            try FileManager.default.copyItem(at: dataset.appendingPathComponent(item), to: capture.appendingPathComponent(item))
        }
        return (dataset, work, capture)
    }

    func testMarkersBesideTheImagesPutTheRunInMetres() throws {
        let (dataset, work, capture) = try markerCapture()
        let truth = try Reconstruction.readColmapText(from: dataset.appendingPathComponent("gt_sparse"))
        let output = work.appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true

        let events = EventRecorder()
        let first = try ReconstructionPipeline(input: capture, output: output, options: options, progress: events).run()
        XCTAssertEqual(first.scaleSource, "markers")
        XCTAssertTrue(events.codes.contains(PipelineEvent.metricScale.code))
        let markers = try XCTUnwrap(first.metricScaleMarkers)
        XCTAssertGreaterThanOrEqual(markers, 6)
        XCTAssertEqual(first.metricScalePoints, 4 * markers)
        XCTAssertLessThan(try XCTUnwrap(first.metricScaleSpread), 0.01)
        let sparse = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(centreDistanceRatio(sparse, truth), 1, accuracy: 0.01)

        // Markers 0 and 4 sit on the board's diagonal, 0.22 √2 m apart: only the metric scale reruns.
        var distance = options
        distance.userScale = .knownDistance(try KnownDistance(parsing: "0,4=\(0.22 * 2.0.squareRoot())"))
        let second = try ReconstructionPipeline(input: capture, output: output, options: distance, progress: nil).run()
        // The orbit's horizon, at one height on each ring, passes for a fixed camera's still
        // structure: automatic masks are made, the pose check sets them aside (the turn leaves
        // its axis) and the sparse stages ran again without them; all of it resumes.
        XCTAssertEqual(first.automaticMasks?.rejectedByPoseCheck, true)
        XCTAssertEqual(second.stages.filter(\.resumed).map(\.name), ["segmentation", "features", "matching", "sparse",
                                                                     "features-unmasked", "matching-unmasked", "sparse-unmasked"])
        XCTAssertEqual(second.scaleSource, "known_distance")
        XCTAssertEqual(second.metricScaleMarkers, 2)
        XCTAssertTrue(second.metricScaleNote?.contains("the markers' scale not used") == true, second.metricScaleNote ?? "")
        let measured = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(centreDistanceRatio(measured, truth), 1, accuracy: 0.01)

        // Without the file no marker is looked for: no scale, and the key the run had before markers.
        try FileManager.default.removeItem(at: capture.appendingPathComponent("markers.json"))
        let third = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(third.scaleSource, "none")
        XCTAssertNil(third.metricScale)
        XCTAssertNil(third.metricScaleMarkers)
    }

    func testMarkersCorrectThePriorsScaleInTheirFrame() throws {
        let dataset = Repository.datasets.appendingPathComponent("markers-12")
        let work = try makeBridgeTestDirectory(self)
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: dataset.appendingPathComponent("images"), to: capture.appendingPathComponent("images"))
        let truth = try Reconstruction.readColmapText(from: dataset.appendingPathComponent("gt_sparse"))
        // Priors whose metres are 3 % long, as a tracking's drift makes them.
        let priorScale = 1.03
        let priors = truth.centresScaled(by: priorScale)
        try NerfstudioTransforms(priors, filePath: { "images/" + $0 }).jsonData()
            .write(to: capture.appendingPathComponent("transforms.json"))
        let truthByName = Dictionary(uniqueKeysWithValues: truth.images.values.map { ($0.name, $0.camFromWorld!) })
        func meanCentreError(_ model: Reconstruction) throws -> Double {
            try model.images.values.map { image in
                length(image.camFromWorld!.centerInWorld - (try XCTUnwrap(truthByName[image.name])).centerInWorld)
            }.reduce(0, +) / Double(model.images.count)
        }

        var options = ReconstructionOptions()
        options.sparseOnly = true
        let output = work.appendingPathComponent("out")
        let first = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(first.scaleSource, "pose_priors")
        let offBefore = try meanCentreError(try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse")))
        XCTAssertGreaterThan(offBefore, 0.01, "the priors' 3 % put the cameras centimetres off")

        try FileManager.default.copyItem(at: dataset.appendingPathComponent("markers.json"), to: capture.appendingPathComponent("markers.json"))
        let second = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(second.scaleSource, "markers")
        XCTAssertTrue(second.metricScaleNote?.contains("pose priors' frame") == true, second.metricScaleNote ?? "no note")
        XCTAssertTrue(second.metricScaleNote?.contains("the pose priors' scale not used") == true, second.metricScaleNote ?? "no note")
        let offAfter = try meanCentreError(try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse")))
        XCTAssertLessThan(offAfter, 0.25 * offBefore, "the markers' scale, in the priors' axes and origin")
        XCTAssertEqual(try XCTUnwrap(second.metricScale) / (try XCTUnwrap(first.metricScale)), 1 / priorScale, accuracy: 0.01)
    }

    func testMarkerFramePutsTheCamerasWhereTheBoardHasThem() throws {
        let (dataset, work, capture) = try markerCapture()
        let truth = try Reconstruction.readColmapText(from: dataset.appendingPathComponent("gt_sparse"))
        // SOURCE.md: the board in z = 0, the markers' centres averaging to the origin, each marker's
        // corner 0 to 1 along +x. So the board's frame is X = x, Y = z, Z = X × Y = -y.
        let boardFromTruth = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, -1, 0))
        let truthCentres = Dictionary(uniqueKeysWithValues: truth.images.values.map {
            ($0.name, boardFromTruth * $0.camFromWorld!.centerInWorld)
        })
        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.markerFrame = true
        let output = work.appendingPathComponent("out")
        let events = EventRecorder()
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: events).run()
        XCTAssertEqual(report.modelFrame, "marker_board")
        XCTAssertNil(report.modelFrameNote)
        XCTAssertTrue(events.codes.contains(PipelineEvent.markerFrame.code))
        let sparse = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        var model: [SIMD3<Double>] = [], expected: [SIMD3<Double>] = []
        for image in sparse.images.values {
            guard let pose = image.camFromWorld else { continue }
            model.append(pose.centerInWorld)
            expected.append(try XCTUnwrap(truthCentres[image.name]))
        }
        XCTAssertGreaterThanOrEqual(model.count, 10)
        // Every camera within 1 % of its distance from the board's centre (0.5 m: 5 mm), which
        // the scale's 1 % and a tilt of half a degree each stay inside.
        let errors = zip(model, expected).map { length($0 - $1) / length($1) }
        print(String(format: "marker frame: camera centre error median %.3f %%, max %.3f %% of the camera distance",
                     100 * MetricScale.median(errors), 100 * (errors.max() ?? 0)))
        XCTAssertLessThan(errors.max() ?? .infinity, 0.01)
        // Up: the truth's cameras mapped onto the model's by a rotation that keeps +Y within 1°.
        let fit = try XCTUnwrap(Similarity3.leastSquares(from: expected, to: model))
        let tilt = acos(min(1, dot(fit.rotation * SIMD3(0, 1, 0), SIMD3(0, 1, 0)))) * 180 / .pi
        print(String(format: "marker frame: up off the board's normal by %.3f degrees", tilt))
        XCTAssertLessThan(tilt, 1)

        // Without the flag: only the upright stage (and those after it) runs again.
        options.markerFrame = false
        let upright = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(upright.modelFrame, "upright")
        XCTAssertTrue(upright.stages.contains { $0.name == "metric-scale" && $0.resumed })
        XCTAssertTrue(upright.stages.contains { $0.name == "upright" && !$0.resumed })
    }

    func testMarkerFrameWithoutMarkersStopsAtOnce() throws {
        let dataset = Repository.datasets.appendingPathComponent("markers-12")
        let work = try makeBridgeTestDirectory(self)
        let capture = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: dataset.appendingPathComponent("images"), to: capture.appendingPathComponent("images"))
        var options = ReconstructionOptions()
        options.sparseOnly = true
        options.markerFrame = true
        XCTAssertThrowsError(try ReconstructionPipeline(input: capture,
                                                        output: work.appendingPathComponent("out"), options: options,
                                                        progress: nil).run()) { error in
            XCTAssertTrue("\(error)".contains("--marker-frame needs markers"), "\(error)")
        }
    }
}
