import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Plain surfaces: SIFT's threshold adapts to a frame too weak for its default, and the report
/// names a textureless surface instead of asking for more photos.
final class LowTextureTests: XCTestCase {
    /// Blob texture whose contrast is scaled by `contrast` about mid-grey: a faint surface.
    static func faint(width: Int, height: Int, contrast: Double, seed: UInt64) -> SyntheticGrayImage {
        var image = SyntheticGrayImage.blobs(width: width, height: height, count: width * height / 250, seed: seed)
        image.pixels = image.pixels.map { UInt8(max(0, min(255, (128 + contrast * (Double($0) - 128)).rounded()))) }
        return image
    }

    /// Matches between two views of one surface, `shift` pixels apart in x, that land where the
    /// shift puts them (within a pixel): the correspondences registration could use.
    static func consistentMatches(_ a: FeatureSet, _ b: FeatureSet, shift: Float) throws -> Int {
        let ka = a.keypoints, kb = b.keypoints
        return try DescriptorMatcher.match(a, b).filter { m in
            let p = ka[Int(m.index1)], q = kb[Int(m.index2)]
            return abs(p.x - q.x - shift) < 1 && abs(p.y - q.y) < 1
        }.count
    }

    func testAdaptiveThresholdReachesTheWorkingCountOnAFaintSurface() throws {
        let directory = try makeBridgeTestDirectory(self)
        let surface = Self.faint(width: 720, height: 480, contrast: 0.2, seed: 31)
        let left = directory.appendingPathComponent("left.pgm"), right = directory.appendingPathComponent("right.pgm")
        try surface.cropped(x: 0, y: 0, width: 640, height: 480).writePGM(to: left)
        try surface.cropped(x: 80, y: 0, width: 640, height: 480).writePGM(to: right)
        var fixed = SIFTOptions()
        fixed.minFeatures = 0
        let working = SIFTOptions.workingFeatureCount
        let fixedLeft = try FeatureSet.extract(imageURL: left, options: fixed)
        let fixedRight = try FeatureSet.extract(imageURL: right, options: fixed)
        let adaptiveLeft = try FeatureSet.extract(imageURL: left)
        let adaptiveRight = try FeatureSet.extract(imageURL: right)
        XCTAssertLessThan(fixedLeft.count, working / 2, "SIFT at 0.04 starves on it")
        XCTAssertEqual(fixedLeft.contrastThreshold, 0.04)
        XCTAssertGreaterThanOrEqual(adaptiveLeft.count, working)
        XCTAssertGreaterThanOrEqual(adaptiveRight.count, working)
        XCTAssertLessThan(adaptiveLeft.contrastThreshold, 0.04)
        XCTAssertGreaterThanOrEqual(adaptiveLeft.contrastThreshold, 0.005)
        XCTAssertEqual(adaptiveLeft.countAtBaseThreshold, fixedLeft.count, "the texture figure is the default's count")
        // The extra features are the surface's, not noise: they match across the two views.
        let fixedMatches = try Self.consistentMatches(fixedLeft, fixedRight, shift: 80)
        let adaptiveMatches = try Self.consistentMatches(adaptiveLeft, adaptiveRight, shift: 80)
        XCTAssertLessThan(fixedMatches, MapperOptions().initMinNumPoints)
        XCTAssertGreaterThanOrEqual(adaptiveMatches, MapperOptions().initMinNumPoints)
        // Deterministic, and the checkpoint keeps the threshold and the texture figure.
        XCTAssertEqual(try FeatureSet.extract(imageURL: left).keypoints, adaptiveLeft.keypoints)
        let checkpoint = directory.appendingPathComponent("left.sift")
        try adaptiveLeft.save(to: checkpoint)
        let loaded = try FeatureSet.load(from: checkpoint)
        XCTAssertEqual(loaded.keypoints, adaptiveLeft.keypoints)
        XCTAssertEqual(loaded.contrastThreshold, adaptiveLeft.contrastThreshold)
        XCTAssertEqual(loaded.countAtBaseThreshold, fixedLeft.count)
        XCTAssertFalse(loaded.maskFromAlpha)
    }

    func testAdaptationLeavesATexturedImageAlone() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("blobs.pgm")
        try SyntheticGrayImage.blobs(width: 640, height: 480, count: 1200, seed: 32).writePGM(to: url)
        var fixed = SIFTOptions()
        fixed.minFeatures = 0
        let reference = try FeatureSet.extract(imageURL: url, options: fixed)
        XCTAssertGreaterThan(reference.count, SIFTOptions.workingFeatureCount)
        let adaptive = try FeatureSet.extract(imageURL: url)
        XCTAssertEqual(adaptive.contrastThreshold, 0.04)
        XCTAssertEqual(adaptive.keypoints, reference.keypoints)
    }

    func testWorkingCountCoversTheInitialPair() {
        // 500 features at the measured share of about 0.2 that a frame shares with its best
        // neighbour as 3D points give the initial pair's 100 points.
        XCTAssertGreaterThanOrEqual(Double(SIFTOptions.workingFeatureCount) * 0.2, Double(MapperOptions().initMinNumPoints))
        XCTAssertEqual(SIFTOptions().minFeatures, SIFTOptions.workingFeatureCount)
    }

    /// A 48-view ring 7.5° apart of which the frames in `registered` registered, every frame with
    /// `textureFeatures` at the default contrast (and 600 after adaptation), diagnosed.
    static func diagnosedRing(registered: Set<Int>, textureFeatures: (Int) -> Int) -> Report {
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 800, height: 600, params: [700, 700, 400, 300]))
        var report = Report()
        for k in 0..<48 {
            let a = 7.5 * Double(k) * .pi / 180
            let name = String(format: "%04d.jpg", k)
            let pose = SyntheticScene.lookAt(from: SIMD3(4 * cos(a), 4 * sin(a), 1.5), to: .zero)
            model.addImage(Image(id: ImageID(k + 1), name: name, cameraID: CameraID(1),
                                 camFromWorld: registered.contains(k) ? pose : nil, points2D: []))
            var entry = ReportImage(name: name, status: registered.contains(k) ? "registered" : "unregistered")
            entry.features = 600
            entry.featuresAtDefaultContrast = textureFeatures(k)
            entry.contrastThreshold = 0.005
            report.images.append(entry)
        }
        report.imagesTotal = 48
        report.imagesRegistered = registered.count
        report.alignmentRatio = Double(registered.count) / 48
        CaptureDiagnosis.diagnose(model, context: .init(), report: &report)
        return report
    }

    func testEveryFrameStarvedIsTexturelessNotMissingOverlap() throws {
        // 19 of 48 registered, in one arc; every frame has 100-200 features at the default contrast.
        let registered = Set(0..<19)
        let report = Self.diagnosedRing(registered: registered) { 100 + (37 * $0) % 100 }
        let texture = try XCTUnwrap(report.texture)
        XCTAssertEqual(texture.verdict, "low")
        XCTAssertEqual(texture.workingFeatures, SIFTOptions.workingFeatureCount)
        XCTAssertEqual(texture.starvedFrames, 48)
        XCTAssertTrue((100..<200).contains(texture.medianFeatures), "\(texture.medianFeatures)")
        let alignment = report.advice.filter { $0.hasPrefix("Low alignment") }
        XCTAssertEqual(alignment.count, 1, "\(report.advice)")
        XCTAssertTrue(alignment[0].contains("lacks texture") && alignment[0].contains("texture the surface")
                      && alignment[0].contains("depth sensor"), alignment[0])
        XCTAssertTrue(alignment[0].contains("\(texture.medianFeatures) features per image"), alignment[0])
        XCTAssertTrue(alignment[0].contains("where a working capture has 500"), alignment[0])
        XCTAssertTrue(alignment[0].contains("spray") && alignment[0].contains("markers") && alignment[0].contains("patterned turntable"), alignment[0])
        XCTAssertFalse(report.advice.contains { $0.contains("more photos between") }, "\(report.advice)")
        let json = try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any]
        let key = try XCTUnwrap(json?["texture"] as? [String: Any])
        XCTAssertEqual(key["verdict"] as? String, "low")
        XCTAssertEqual(key["working_features"] as? Int, 500)
        XCTAssertEqual(key["median_features"] as? Int, texture.medianFeatures)
        let first = try XCTUnwrap((json?["images"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["contrast_threshold"] as? Double, 0.005)
        XCTAssertNotNil(first["features_at_default_contrast"] as? Int)

        // The control: the same ring with textured frames did lose overlap, and is told so.
        let textured = Self.diagnosedRing(registered: registered) { 2000 + (37 * $0) % 100 }
        XCTAssertEqual(textured.texture?.verdict, "textured")
        XCTAssertTrue(textured.advice.contains { $0.contains("more photos between") }, "\(textured.advice)")
        XCTAssertFalse(textured.advice.contains { $0.contains("lacks texture") })
    }
}
