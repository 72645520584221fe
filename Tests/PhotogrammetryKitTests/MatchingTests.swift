import Foundation
import XCTest
@testable import PhotogrammetryKit

final class MatchingTests: XCTestCase {
    /// Extracts features from two images and matches them.
    private func matchPair(
        _ first: SyntheticGrayImage, _ second: SyntheticGrayImage, firstOptions: SIFTOptions = SIFTOptions()
    ) throws -> (FeatureSet, FeatureSet, [FeatureMatch]) {
        let directory = try makeBridgeTestDirectory(self)
        let url1 = directory.appendingPathComponent("1.pgm")
        let url2 = directory.appendingPathComponent("2.pgm")
        try first.writePGM(to: url1)
        try second.writePGM(to: url2)
        let features1 = try FeatureSet.extract(imageURL: url1, options: firstOptions)
        let features2 = try FeatureSet.extract(imageURL: url2)
        return (features1, features2, try DescriptorMatcher.match(features1, features2))
    }

    /// Fraction of matches whose second keypoint is within `tolerance` px of transform(first).
    private func agreement(
        _ pair: (FeatureSet, FeatureSet, [FeatureMatch]), tolerance: Float,
        transform: (SIMD2<Float>) -> SIMD2<Float>
    ) -> Double {
        let (features1, features2, matches) = pair
        let good = matches.filter { match in
            let p1 = features1.keypoint(at: Int(match.index1))
            let p2 = features2.keypoint(at: Int(match.index2))
            let expected = transform(SIMD2(p1.x, p1.y))
            let d = SIMD2(p2.x, p2.y) - expected
            return (d * d).sum().squareRoot() < tolerance
        }
        return Double(good.count) / Double(max(1, matches.count))
    }

    func testMatchesAgreeWithKnownShift() throws {
        let canvas = SyntheticGrayImage.blobs(width: 720, height: 540, count: 900, seed: 11)
        let pair = try matchPair(
            canvas.cropped(x: 0, y: 0, width: 640, height: 480),
            canvas.cropped(x: 37, y: 23, width: 640, height: 480))
        XCTAssertGreaterThan(pair.2.count, 200)
        XCTAssertGreaterThan(agreement(pair, tolerance: 1) { $0 - SIMD2(37, 23) }, 0.9)
    }

    func testMatchesAgreeWithKnownRotation() throws {
        let image = SyntheticGrayImage.blobs(width: 640, height: 480, count: 800, seed: 12)
        let pair = try matchPair(image, image.rotatedClockwise())
        XCTAssertGreaterThan(pair.2.count, 200)
        XCTAssertGreaterThan(agreement(pair, tolerance: 1) { SIMD2(480 - $0.y, $0.x) }, 0.9)
    }

    func testDownscaledDetectionReportsFullSizePixels() throws {
        let canvas = SyntheticGrayImage.blobs(width: 720, height: 540, count: 900, seed: 13)
        var options = SIFTOptions()
        options.maxImageSize = 320  // half size: keypoints must still come back in full pixels
        let pair = try matchPair(
            canvas.cropped(x: 0, y: 0, width: 640, height: 480),
            canvas.cropped(x: 41, y: 17, width: 640, height: 480), firstOptions: options)
        XCTAssertEqual(pair.0.imageWidth, 640)
        XCTAssertGreaterThan(pair.2.count, 50)
        XCTAssertGreaterThan(agreement(pair, tolerance: 1.5) { $0 - SIMD2(41, 17) }, 0.9)
    }

    func testCrossCheckedMatchesAreSymmetricAndUnique() throws {
        let canvas = SyntheticGrayImage.blobs(width: 720, height: 540, count: 900, seed: 14)
        let (a, b, forward) = try matchPair(
            canvas.cropped(x: 0, y: 0, width: 640, height: 480),
            canvas.cropped(x: 60, y: 40, width: 640, height: 480))
        let backward = try DescriptorMatcher.match(b, a)
        XCTAssertEqual(Set(forward), Set(backward.map { FeatureMatch($0.index2, $0.index1) }))
        XCTAssertEqual(Set(forward.map(\.index2)).count, forward.count)
        var loose = MatchOptions()
        loose.crossCheck = false
        let oneWay = try DescriptorMatcher.match(a, b, options: loose)
        XCTAssertGreaterThanOrEqual(oneWay.count, forward.count)
        XCTAssertEqual(Set(oneWay.map(\.index2)).count, oneWay.count, "each b used once")
        XCTAssert(oneWay.allSatisfy { Int($0.index1) < a.count && Int($0.index2) < b.count })
    }

    func testUnrelatedImagesGiveFewMatches() throws {
        let (a, _, matches) = try matchPair(
            SyntheticGrayImage.blobs(width: 640, height: 480, count: 800, seed: 15),
            SyntheticGrayImage.blobs(width: 640, height: 480, count: 800, seed: 16))
        XCTAssertLessThan(Double(matches.count), 0.05 * Double(a.count))
    }
}
