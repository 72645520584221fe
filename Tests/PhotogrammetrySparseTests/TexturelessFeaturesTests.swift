import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// A texture-poor object inside a mask: the contrast threshold adapts to the count inside the
/// mask, guided matching along the turn finds the matches the ratio test lost, and the texture
/// advice gives its figures.
final class TexturelessFeaturesTests: XCTestCase {
    /// Blob texture whose contrast is scaled by `contrast` about mid-grey: a faint surface.
    static func faint(width: Int, height: Int, contrast: Double, seed: UInt64) -> SyntheticGrayImage {
        var image = SyntheticGrayImage.blobs(width: width, height: height, count: width * height / 250, seed: seed)
        image.pixels = image.pixels.map { UInt8(max(0, min(255, (128 + contrast * (Double($0) - 128)).rounded()))) }
        return image
    }

    /// An 8-bit mask of `width` x `height` keeping the rectangle `keep` (255), the rest 0.
    static func mask(width: Int, height: Int, keep: CGRect) -> SyntheticGrayImage {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in Int(keep.minY)..<Int(keep.maxY) {
            for x in Int(keep.minX)..<Int(keep.maxX) { pixels[y * width + x] = 255 }
        }
        return SyntheticGrayImage(width: width, height: height, pixels: pixels)
    }

    func testFeaturesInsideAMaskRiseOnAFaintSurfaceAndStayOnATexturedOne() throws {
        let directory = try makeBridgeTestDirectory(self)
        let keep = CGRect(x: 80, y: 60, width: 480, height: 360)
        let maskURL = directory.appendingPathComponent("mask.pgm")
        try Self.mask(width: 640, height: 480, keep: keep).writePGM(to: maskURL)
        var fixed = SIFTOptions()
        fixed.minFeatures = 0
        func inside(_ set: FeatureSet) -> Bool {
            set.keypoints.allSatisfy { keep.insetBy(dx: -1, dy: -1).contains(CGPoint(x: Double($0.x), y: Double($0.y))) }
        }

        let faintURL = directory.appendingPathComponent("faint.pgm")
        try Self.faint(width: 640, height: 480, contrast: 0.2, seed: 41).writePGM(to: faintURL)
        let faintFixed = try FeatureSet.extract(imageURL: faintURL, maskURL: maskURL, options: fixed)
        let faintAdaptive = try FeatureSet.extract(imageURL: faintURL, maskURL: maskURL)
        XCTAssertLessThan(faintFixed.count, SIFTOptions.workingFeatureCount / 4, "SIFT at 0.04 starves inside the mask")
        XCTAssertGreaterThan(faintAdaptive.count, 3 * faintFixed.count, "\(faintFixed.count) -> \(faintAdaptive.count)")
        XCTAssertLessThan(faintAdaptive.contrastThreshold, fixed.contrastThreshold)
        XCTAssertEqual(faintAdaptive.countAtBaseThreshold, faintFixed.count)
        XCTAssertTrue(inside(faintAdaptive), "every adapted feature lies inside the mask")

        // A textured surface holds the working count inside the same mask: nothing changes.
        let texturedURL = directory.appendingPathComponent("textured.pgm")
        try SyntheticGrayImage.blobs(width: 640, height: 480, count: 4000, seed: 42).writePGM(to: texturedURL)
        let texturedFixed = try FeatureSet.extract(imageURL: texturedURL, maskURL: maskURL, options: fixed)
        let texturedAdaptive = try FeatureSet.extract(imageURL: texturedURL, maskURL: maskURL)
        XCTAssertGreaterThanOrEqual(texturedFixed.count, SIFTOptions.workingFeatureCount)
        XCTAssertEqual(texturedAdaptive.contrastThreshold, fixed.contrastThreshold)
        XCTAssertTrue(texturedAdaptive.keypoints == texturedFixed.keypoints, "the textured frame's features are unchanged")
        XCTAssertTrue(inside(texturedAdaptive))
    }

    /// Two views of a faint surface that repeats itself every `period` rows (a texture-poor
    /// surface's few gradients recur), from a camera moved sideways over a surface that bulges and
    /// curves away from it: pixel (x, y) of the second view shows the surface ``shift(_:_:)`` px
    /// further right, which no homography explains, so F is general.
    static func parallaxPair(in directory: URL) throws -> (URL, URL) {
        let tile = faint(width: 760, height: period, contrast: 0.2, seed: 43)
        var surface = SyntheticGrayImage(width: 760, height: 480, pixels: [])
        for y in 0..<480 { surface.pixels += tile.pixels[(y % period) * 760..<(y % period + 1) * 760] }
        let first = surface.cropped(x: 0, y: 0, width: 640, height: 480)
        var second = first
        for y in 0..<480 {
            for x in 0..<640 {
                second.pixels[y * 640 + x] = surface.pixels[y * 760 + x + Int(Self.shift(Float(x), Float(y)).rounded())]
            }
        }
        let a = directory.appendingPathComponent("a.pgm"), b = directory.appendingPathComponent("b.pgm")
        try first.writePGM(to: a)
        try second.writePGM(to: b)
        return (a, b)
    }

    static let period = 160

    /// The parallax at pixel (x, y) of the second view: 64 px at the top, 104 at the bottom,
    /// growing with the square, and a bulge of 12 px across the width.
    static func shift(_ x: Float, _ y: Float) -> Float {
        64 + 40 * (y / 480) * (y / 480) + 12 * sin(2 * .pi * x / 640)
    }

    /// Matches of an edge whose keypoints land where the parallax puts them (within a pixel).
    static func correct(_ edge: MatchGraph.Edge, _ a: FeatureSet, _ b: FeatureSet) -> Int {
        let ka = a.keypoints, kb = b.keypoints
        return edge.matches.filter { m in
            let p = ka[Int(m.x)], q = kb[Int(m.y)]
            let shift = Self.shift(q.x - 0.5, q.y - 0.5)
            return abs(p.x - q.x - shift) < 1.5 && abs(p.y - q.y) < 1
        }.count
    }

    func testGuidedMatchingAlongTheTurnFindsMoreCorrectMatchesOnALowTexturePair() throws {
        let directory = try makeBridgeTestDirectory(self)
        let (a, b) = try Self.parallaxPair(in: directory)
        let features = [try FeatureSet.extract(imageURL: a), try FeatureSet.extract(imageURL: b)]
        XCTAssertTrue(features.allSatisfy { $0.countAtBaseThreshold < SIFTOptions.workingFeatureCount }, "texture-poor")
        var plain = MatchingOptions()
        plain.turnGuidance.enabled = false
        var guidedOptions = MatchingOptions()
        guidedOptions.turnGuidance.enabled = true
        let pairs = [SIMD2<Int32>(0, 1)]
        let unguided = try PairMatching.match(pairs, features: features, calibration: [nil, nil], staticFeatures: nil,
                                              options: plain, threads: 1, progress: nil)
        let guided = try PairMatching.match(pairs, features: features, calibration: [nil, nil], staticFeatures: nil,
                                            options: guidedOptions, threads: 1, progress: nil)
        let before = try XCTUnwrap(unguided.graph.edges.first)
        let after = try XCTUnwrap(guided.graph.edges.first)
        let correctBefore = Self.correct(before, features[0], features[1])
        let correctAfter = Self.correct(after, features[0], features[1])
        XCTAssertGreaterThan(correctAfter, 2 * correctBefore, "\(correctBefore) -> \(correctAfter)")
        XCTAssertGreaterThanOrEqual(Double(correctAfter), 0.95 * Double(after.matches.count),
                                    "the band keeps the looser ratio honest")
        XCTAssertTrue(after.configuration.hasGeneralMotion)

        // Frames far apart in capture order, or textured ones, are not guided.
        XCTAssertFalse(TurnGuidance().areNeighbours(0, 5, count: 36))
        XCTAssertTrue(TurnGuidance().areNeighbours(0, 35, count: 36), "the turn closes: the last frame neighbours the first")
        var textured = guidedOptions.turnGuidance
        textured.maxTextureFeatures = 0
        XCTAssertTrue(textured.candidates(unguided.graph.edges, features: features).isEmpty)
    }

    func testTextureDiagnosisGivesTheFiguresAndTheFix() {
        let texture = TextureSummary(medianFeatures: 137, workingFeatures: SIFTOptions.workingFeatureCount,
                                     starvedFrames: 48, verdict: "low")
        let line = CaptureAdvice.textureDiagnosis(texture)
        XCTAssertTrue(line.hasPrefix("the surface lacks texture: 137 features per image"), line)
        XCTAssertTrue(line.contains("where a working capture has \(SIFTOptions.workingFeatureCount)"), line)
        for fix in ["spray", "markers", "patterned turntable"] { XCTAssertTrue(line.contains(fix), "\(fix): \(line)") }
    }
}
