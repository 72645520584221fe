import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The metric scale estimator on seeded synthetic scenes: depth images made from the true
/// points (in metres), the model in other units; noise, outliers, quarter-resolution depth,
/// depth without a metric range.
final class MetricScaleTests: XCTestCase {
    static let noExif = ImageMetadata(orientation: 1, focalLengthMM: 0, focalLength35mm: 0, focalPlaneXResolution: 0,
                                      focalPlaneUnitMM: 0, pixelWidth: 0, pixelHeight: 0, make: "", model: "")
    /// Metres per model unit the tests hide in the model.
    let trueFactor = 0.037

    /// Depth images of `truth` (metres): each observed point splatted as a patch of its z around
    /// its keypoint, at `1/reduction` of the photo per side; per-pixel multiplicative noise
    /// (`noise`, a fraction), and a fraction `outliers` of the observations given a wrong depth
    /// (times 0.3 to 3) over their whole patch. Pixels no point covers have no depth (0).
    func depthImages(_ truth: Reconstruction, reduction: Int = 1, noise: Double, outliers: Double,
                     seed: UInt64 = 3) -> [ImageID: MetricDepthImage] {
        var rng = SplitMix64(seed: seed)
        var out: [ImageID: MetricDepthImage] = [:]
        for id in truth.registeredImageIDs {
            let image = truth.images[id]!, camera = truth.cameras[image.cameraID]!, pose = image.camFromWorld!
            let width = camera.width / reduction, height = camera.height / reduction
            var metres = [Float](repeating: 0, count: width * height)
            let radius = 3
            for (index, pointID) in image.point3DIDs.enumerated() {
                guard let pointID, let point = truth.points3D[pointID] else { continue }
                var z = pose.apply(point.position).z
                if rng.uniform() < outliers { z *= rng.uniform(0.3, 3) }
                let p = image.points2D[index] / Double(reduction)
                let cx = Int(p.x), cy = Int(p.y)
                for y in max(cy - radius, 0)...min(cy + radius, height - 1) {
                    for x in max(cx - radius, 0)...min(cx + radius, width - 1) {
                        // The nearer surface wins where patches overlap, as in a real depth image.
                        let d = Float(z * (1 + noise * rng.gaussian()))
                        if metres[y * width + x] == 0 || d < metres[y * width + x] { metres[y * width + x] = d }
                    }
                }
            }
            out[id] = MetricDepthImage(width: width, height: height, metres: metres)
        }
        return out
    }

    func scene(seed: UInt64 = 1) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.numImages = 10
        options.numPoints = 400
        options.pixelNoise = 0.5
        options.model = .pinhole
        options.seed = seed
        return SyntheticScene(options)
    }

    func testRecoversKnownScaleFromNoisyDepthWithOutliers() throws {
        let truth = scene().reconstruction
        let depth = depthImages(truth, noise: 0.015, outliers: 0.05)
        let model = truth.scaled(by: 1 / trueFactor)
        let estimate = try XCTUnwrap(MetricScale.estimate(model, depth: { depth[$0.id] }, threads: 2))
        XCTAssertEqual(estimate.factor / trueFactor, 1, accuracy: 0.01, "within 1 % of the true scale")
        XCTAssertGreaterThan(estimate.points, 200)
        XCTAssertEqual(estimate.images, 10)
        XCTAssertLessThan(estimate.spread, 0.05, "one point's scatter: about the depth noise")
        XCTAssertGreaterThan(estimate.spread, 0.001)
        // Scaling the model by the factor brings it to metres.
        let scaled = model.scaled(by: estimate.factor)
        let a = scaled.images[ImageID(1)]!.camFromWorld!.centerInWorld, b = truth.images[ImageID(1)]!.camFromWorld!.centerInWorld
        XCTAssertEqual(length(a - b) / length(b), 0, accuracy: 0.01)
    }

    func testOutliersWithoutRejectionWouldBias() throws {
        // The same ratios: MAD rejection keeps the factor where the per-point medians are.
        var ratios: [[Double]] = (0..<200).map { i in [2.0 * (1 + 0.01 * sin(Double(i)))] }
        ratios += (0..<40).map { _ in [9.0] }
        let estimate = try XCTUnwrap(MetricScale.estimate(pointRatios: ratios))
        XCTAssertEqual(estimate.factor, 2, accuracy: 0.02)
        XCTAssertEqual(estimate.outliers, 40)
        XCTAssertEqual(estimate.points, 200)
    }

    func testQuarterResolutionDepth() throws {
        let truth = scene(seed: 2).reconstruction
        let depth = depthImages(truth, reduction: 4, noise: 0.01, outliers: 0.03)
        XCTAssertEqual(depth.values.first?.width, 250, "1000 px photos, 250 px depth")
        let model = truth.scaled(by: 1 / trueFactor)
        let estimate = try XCTUnwrap(MetricScale.estimate(model, depth: { depth[$0.id] }))
        XCTAssertEqual(estimate.factor / trueFactor, 1, accuracy: 0.01)
        XCTAssertGreaterThan(estimate.points, 100)
    }

    func testTooFewPointsGiveNoFactor() {
        let ratios = (0..<10).map { _ in [1.5] }
        XCTAssertNil(MetricScale.estimate(pointRatios: ratios), "fewer than minPoints (20)")
        var options = MetricScale.Options()
        options.minPoints = 5
        XCTAssertEqual(MetricScale.estimate(pointRatios: ratios, options: options)?.factor, 1.5)
        XCTAssertNil(MetricScale.estimate(pointRatios: [[Double]](repeating: [], count: 50)), "no observation gave a ratio")
    }

    func testSamplingSkipsHolesAndEdges() {
        // 8 x 4 depth image: 1 m on the left half, 2 m on the right, a hole at (1, 3).
        var metres = [Float](repeating: 1, count: 32)
        for y in 0..<4 { for x in 4..<8 { metres[y * 8 + x] = 2 } }
        metres[3 * 8 + 1] = 0
        let depth = MetricDepthImage(width: 8, height: 4, metres: metres)
        // Photo of 32 x 16: depth pixel (1, 1) covers photo pixels [4, 8) x [4, 8).
        XCTAssertEqual(depth.depth(at: SIMD2(6, 6), imageWidth: 32, imageHeight: 16, maxRelativeJump: 0.1) ?? 0, 1, accuracy: 1e-12)
        XCTAssertNil(depth.depth(at: SIMD2(14, 6), imageWidth: 32, imageHeight: 16, maxRelativeJump: 0.1),
                     "next to the step from 1 m to 2 m")
        XCTAssertNil(depth.depth(at: SIMD2(6, 14), imageWidth: 32, imageHeight: 16, maxRelativeJump: 0.1), "beside the hole")
        XCTAssertEqual(depth.depth(at: SIMD2(26, 6), imageWidth: 32, imageHeight: 16, maxRelativeJump: 0.1) ?? 0, 2, accuracy: 1e-12)
        XCTAssertNil(depth.depth(at: SIMD2(40, 6), imageWidth: 32, imageHeight: 16, maxRelativeJump: 0.1), "outside")
        XCTAssertTrue(depth.matches(imageWidth: 32, imageHeight: 16))
        XCTAssertFalse(depth.matches(imageWidth: 16, imageHeight: 32), "a depth map in the sensor's orientation")
    }

    func testDepthWithoutMetricRangeIsRefused() throws {
        let normalized = HEICDepthImage(width: 4, height: 3, bitDepth: 8, representation: .nonuniformDisparity,
                                        zNear: nil, zFar: nil, dMin: nil, dMax: nil, values: .normalized,
                                        samples: [Float](repeating: 0.5, count: 12))
        XCTAssertThrowsError(try MetricDepthImage(heic: normalized)) { error in
            XCTAssertTrue((error as? MetricDepthImage.Unusable)?.reason.contains("without a metric range") == true, "\(error)")
        }
        let disparity = HEICDepthImage(width: 2, height: 1, bitDepth: 8, representation: .uniformDisparity,
                                       zNear: nil, zFar: nil, dMin: 0.25, dMax: 2, values: .disparity, samples: [0.5, 0])
        XCTAssertEqual(try MetricDepthImage(heic: disparity).metres, [2, 0], "disparity in 1/m: depth 1/d; 0 = none")

        // A capture's HEIC with a depth item (uniform Z, 0.5 to 2.5 m) reads in metres; a PNG
        // without a depth folder has none.
        let heic = Repository.datasets.appendingPathComponent("heic/depth.heic")
        let image = CaptureImage(name: "depth.heic", url: heic, width: 320, height: 240, exif: Self.noExif)
        guard case .depth(let metric) = CaptureDepth(folder: nil).load(image) else { return XCTFail("depth.heic has depth") }
        XCTAssertEqual(metric.width, 160)
        XCTAssertEqual(Double(metric.metres.min()!), 0.5, accuracy: 1e-6)
        XCTAssertEqual(Double(metric.metres.max()!), 2.5, accuracy: 1e-6)
        let rotated = CaptureImage(name: "depth.heic", url: heic, width: 240, height: 320, exif: Self.noExif)
        guard case .unusable(let reason) = CaptureDepth(folder: nil).load(rotated) else { return XCTFail("other aspect ratio") }
        XCTAssertTrue(reason.contains("not in the frame"), reason)
    }

    func testADepthFolderIsNotReadAsImagesAndNamesItsPNGs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-depth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("depth"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let pixels = [SIMD3<UInt8>](repeating: SIMD3(90, 120, 200), count: 80 * 80)
        for name in ["a", "b", "c"] {
            try TestPNG.writeRGB(pixels, width: 80, height: 80, to: folder.appendingPathComponent(name + ".png"))
        }
        try TestPNG.writeGrey16([UInt16](repeating: 1500, count: 20 * 20), width: 20, height: 20,
                                to: folder.appendingPathComponent("depth/b.png"))
        let capture = try CaptureLoader.load(input: folder, workspace: try makeBridgeTestDirectory(self))
        XCTAssertEqual(capture.imagesTotal, 3, "depth/b.png is not an image of the capture")
        let depth = CaptureDepth.discover(in: capture)
        XCTAssertEqual(depth.folder?.lastPathComponent, "depth")
        let b = try XCTUnwrap(capture.images.first { $0.name == "b.png" })
        guard case .depth(let metric) = depth.load(b) else { return XCTFail("b has a depth PNG") }
        XCTAssertEqual(metric.width, 20, "a quarter of the photo per side")
        XCTAssertEqual(metric.metres.first, 1.5, "millimetres to metres")
        guard case .none = depth.load(capture.images[0]) else { return XCTFail("a has no depth") }
        XCTAssertEqual(depth.digest(of: capture.images, threads: 1), depth.digest(of: capture.images, threads: 2))
        XCTAssertEqual(CaptureDepth(folder: nil).digest(of: capture.images, threads: 1), "", "no folder: the key is unchanged")
    }

    func testConfidenceMapsBesideTheDepthFolderAreReadAndChecked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-depth-\(UUID().uuidString)")
        for sub in ["depth", "depth_confidence"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let pixels = [SIMD3<UInt8>](repeating: SIMD3(90, 120, 200), count: 80 * 80)
        for name in ["a", "b", "c"] {
            try TestPNG.writeRGB(pixels, width: 80, height: 80, to: folder.appendingPathComponent(name + ".png"))
            try TestPNG.writeGrey16([UInt16](repeating: 1500, count: 20 * 20), width: 20, height: 20,
                                    to: folder.appendingPathComponent("depth/\(name).png"))
        }
        let levels = (0..<400).map { UInt8($0 % 3) }
        try TestPNG.writeGrey(levels, width: 20, height: 20, to: folder.appendingPathComponent("depth_confidence/a.png"))
        try TestPNG.writeGrey(Array(levels.prefix(200)), width: 20, height: 10, to: folder.appendingPathComponent("depth_confidence/b.png"))
        let capture = try CaptureLoader.load(input: folder, workspace: try makeBridgeTestDirectory(self))
        XCTAssertEqual(capture.imagesTotal, 3, "confidence maps are not images of the capture")
        let depth = CaptureDepth.discover(in: capture)
        let image = { (name: String) in try XCTUnwrap(capture.images.first { $0.name == name }) }
        guard case .depth(let a) = depth.load(try image("a.png")) else { return XCTFail("a has depth") }
        XCTAssertEqual(a.confidence, levels)
        guard case .unusable(let reason) = depth.load(try image("b.png")) else { return XCTFail("b's confidence is of another size") }
        XCTAssertTrue(reason.contains("b.png is 20x10"), reason)
        guard case .depth(let c) = depth.load(try image("c.png")) else { return XCTFail("c has depth") }
        XCTAssertNil(c.confidence, "no confidence map: every pixel counts")
    }

    func testNoUsableDepthSaysWhy() {
        let scaling = MetricScaling(estimates: [nil], imagesWithDepth: 0, unusable: [
            RejectedImage(name: "a.heic", reason: "depth image without a metric range (representation none, ...)")])
        XCTAssertNil(scaling.factor)
        XCTAssertEqual(scaling.source, "none")
        XCTAssertTrue(scaling.note?.contains("without a metric range") == true)
        var report = Report()
        MetricScaleStage.report(scaling, in: &report)
        XCTAssertNil(report.metricScale)
        XCTAssertEqual(report.scaleSource, "none")
        XCTAssertNotNil(report.metricScaleNote)
        XCTAssertTrue(ReportSummary.text(report).contains("scale       none: no usable depth image"))
    }
}
