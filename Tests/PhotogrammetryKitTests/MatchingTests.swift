import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

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

    /// The matcher multiplies the descriptors' bytes in blocks (VNNI tiles of 6 x 64 keypoints
    /// where the CPU has them); a plain double-precision search over the unit descriptors, with
    /// the same ratio, distance and mutual tests, must find the same matches. Counts that are not
    /// multiples of the tiles exercise the edges.
    func testMatchesEqualABruteForceSearch() throws {
        let canvas = SyntheticGrayImage.blobs(width: 720, height: 540, count: 1100, seed: 21)
        let (a, b, matches) = try matchPair(
            canvas.cropped(x: 0, y: 0, width: 640, height: 480),
            canvas.cropped(x: 50, y: 30, width: 640, height: 480))
        XCTAssertGreaterThan(a.count, 200)
        XCTAssertNotEqual(b.count % 64, 0, "a tile edge is exercised (AVX-512 VNNI: 64 keypoints of b)")
        XCTAssertNotEqual(b.count % 48, 0, "a tile edge is exercised (AVX2: 48 keypoints of b)")
        let descriptorsA = (0..<a.count).map { a.descriptor(at: $0).map(Double.init) }
        let descriptorsB = (0..<b.count).map { b.descriptor(at: $0).map(Double.init) }
        typealias Nearest = (best: Double, second: Double, index: Int)
        func nearest(_ d: [Double], in others: [[Double]]) -> Nearest {
            var result: Nearest = (-2, -2, -1)
            for (index, other) in others.enumerated() {
                var dot = 0.0
                for k in 0..<128 { dot += d[k] * other[k] }
                if dot > result.best {
                    result = (dot, result.best, index)
                } else if dot > result.second {
                    result.second = dot
                }
            }
            return result
        }
        let options = MatchOptions()
        func passes(_ n: Nearest) -> Bool {
            let best = acos(min(1, max(-1, n.best))), second = acos(min(1, max(-1, n.second)))
            return best <= Double(options.maxDistance) && best < Double(options.maxRatio) * second
        }
        let forward = descriptorsA.map { nearest($0, in: descriptorsB) }
        let backward = descriptorsB.map { nearest($0, in: descriptorsA) }
        var expected = Set<FeatureMatch>()
        for (i, n) in forward.enumerated() where passes(n) && backward[n.index].index == i && passes(backward[n.index]) {
            expected.insert(FeatureMatch(Int32(i), Int32(n.index)))
        }
        XCTAssertGreaterThan(expected.count, 100)
        // Float rounding may flip a test sitting exactly on its threshold; nothing more.
        let differing = expected.symmetricDifference(Set(matches)).count
        XCTAssertLessThanOrEqual(differing, 1, "\(differing) of \(expected.count) matches differ")
    }

    func testUnrelatedImagesGiveFewMatches() throws {
        let (a, _, matches) = try matchPair(
            SyntheticGrayImage.blobs(width: 640, height: 480, count: 800, seed: 15),
            SyntheticGrayImage.blobs(width: 640, height: 480, count: 800, seed: 16))
        XCTAssertLessThan(Double(matches.count), 0.05 * Double(a.count))
    }
}
