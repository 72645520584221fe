import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Guided matching: a texture that repeats every 96 px down the image defeats the plain ratio
/// test (each blob has a twin above and below), but along a horizontal shift the epipolar lines
/// are the rows, the twins leave the band, and the matches come back.
final class GuidedMatchingTests: XCTestCase {
    /// A 640 x 480 view of a field whose 96-row strip repeats vertically, shifted by `shift` px.
    func view(shift: Int) -> SyntheticGrayImage {
        let strip = SyntheticGrayImage.blobs(width: 760, height: 96, count: 220, seed: 31)
        var pixels = [UInt8](repeating: 0, count: 640 * 480)
        for y in 0..<480 {
            for x in 0..<640 { pixels[y * 640 + x] = strip.pixels[(y % 96) * 760 + x + shift] }
        }
        return SyntheticGrayImage(width: 640, height: 480, pixels: pixels)
    }

    /// Features of the unshifted view and of the view shifted by `shift` px.
    func features(shift: Int) throws -> (FeatureSet, FeatureSet) {
        let directory = try makeBridgeTestDirectory(self)
        let url1 = directory.appendingPathComponent("1.pgm"), url2 = directory.appendingPathComponent("2.pgm")
        try view(shift: 0).writePGM(to: url1)
        try view(shift: shift).writePGM(to: url2)
        return (try FeatureSet.extract(imageURL: url1), try FeatureSet.extract(imageURL: url2))
    }

    func testEpipolarBandRecoversMatchesThatRepetitionHides() throws {
        let (first, second) = try features(shift: 41)
        let plain = try DescriptorMatcher.match(first, second)
        // Camera moved along x: x_b^T F x_a = y_a - y_b, the rows are the epipolar lines.
        let fundamental: [Double] = [0, 0, 0, 0, 0, -1, 0, 1, 0]
        let guided = try DescriptorMatcher.matchGuided(first, second, fundamental: fundamental, maxErrorPx: 2)
        func correct(_ matches: [FeatureMatch]) -> Int {
            matches.filter { m in
                let a = first.keypoint(at: Int(m.index1)), b = second.keypoint(at: Int(m.index2))
                return abs(b.x - (a.x - 41)) < 1.5 && abs(b.y - a.y) < 1.5
            }.count
        }
        XCTAssertGreaterThan(correct(guided), 3 * max(1, correct(plain)), "the band brings back the repeated texture")
        XCTAssertGreaterThan(Double(correct(guided)), 0.9 * Double(guided.count), "and what it brings is right")
        XCTAssertGreaterThan(guided.count, 150)
        // Every guided match lies in the band.
        for m in guided {
            XCTAssertLessThanOrEqual(abs(first.keypoint(at: Int(m.index1)).y - second.keypoint(at: Int(m.index2)).y), 2.0001)
        }
    }

    /// A band wider than the image admits every pair of keypoints: guided matching is then
    /// plain matching, computed by blocks of the grid instead of one product.
    func testBandWiderThanTheImageIsPlainMatching() throws {
        let (first, second) = try features(shift: 41)
        for crossCheck in [true, false] {
            var options = MatchOptions()
            options.crossCheck = crossCheck
            let plain = try DescriptorMatcher.match(first, second, options: options).map { SIMD2($0.index1, $0.index2) }
            let guided = try DescriptorMatcher.matchGuided(first, second, fundamental: [0, 0, 0, 0, 0, -1, 0, 1, 0],
                                                           maxErrorPx: 1e5, options: options).map { SIMD2($0.index1, $0.index2) }
            XCTAssertGreaterThan(plain.count, 50)
            XCTAssertEqual(Set(guided), Set(plain), "cross check \(crossCheck)")
        }
    }

    /// The blocked band against its definition, written out pair by pair: a slanted F (lines
    /// through an epipole left of the image), the two-sided band test, the ratio test and the
    /// mutual check among the candidates.
    func testBlockedBandEqualsItsDefinition() throws {
        let (first, second) = try features(shift: 17)
        // Epipoles at (-900, 200) in both images: lines fan out across the rows.
        let e = SIMD3<Double>(-900, 200, 1)
        let f = [0, -e.z, e.y, e.z, 0, -e.x, -e.y, e.x, 0]  // [e]x: x2^T [e]x x1 = det(x2, e, x1)
        let band = 6.0
        let guided = try DescriptorMatcher.matchGuided(first, second, fundamental: f, maxErrorPx: band)
            .map { SIMD2($0.index1, $0.index2) }

        func distance(_ l: SIMD3<Double>, _ p: SIMD4<Float>) -> Double {
            abs(l.x * Double(p.x) + l.y * Double(p.y) + l.z) / hypot(l.x, l.y)
        }
        let a = (0..<first.count).map { first.keypoint(at: $0) }, b = (0..<second.count).map { second.keypoint(at: $0) }
        let da = (0..<first.count).map { first.descriptor(at: $0) }, db = (0..<second.count).map { second.descriptor(at: $0) }
        var bestOfA = [(Float, Float, Int)](repeating: (-2, -2, -1), count: a.count)
        var bestOfB = [(Float, Float, Int)](repeating: (-2, -2, -1), count: b.count)
        func offer(_ t: inout (Float, Float, Int), _ v: Float, _ k: Int) {
            if v > t.0 { t = (v, t.0, k) } else if v > t.1 { t.1 = v }
        }
        for i in a.indices {
            let x = SIMD3(Double(a[i].x), Double(a[i].y), 1)
            let inB = SIMD3(f[0] * x.x + f[1] * x.y + f[2], f[3] * x.x + f[4] * x.y + f[5], f[6] * x.x + f[7] * x.y + f[8])
            for j in b.indices {
                let y = SIMD3(Double(b[j].x), Double(b[j].y), 1)
                let inA = SIMD3(f[0] * y.x + f[3] * y.y + f[6], f[1] * y.x + f[4] * y.y + f[7], f[2] * y.x + f[5] * y.y + f[8])
                guard distance(inB, b[j]) <= band, distance(inA, a[i]) <= band else { continue }
                let similarity = zip(da[i], db[j]).reduce(Float(0)) { $0 + $1.0 * $1.1 }
                offer(&bestOfA[i], similarity, j)
                offer(&bestOfB[j], similarity, i)
            }
        }
        func passes(_ t: (Float, Float, Int)) -> Bool {
            t.2 >= 0 && acos(min(t.0, 1)) <= 0.7 && acos(min(t.0, 1)) < 0.8 * acos(max(min(t.1, 1), -1))
        }
        let reference = a.indices.compactMap { i -> SIMD2<Int32>? in
            let j = bestOfA[i].2
            guard passes(bestOfA[i]), bestOfB[j].2 == i, passes(bestOfB[j]) else { return nil }
            return SIMD2(Int32(i), Int32(j))
        }
        XCTAssertGreaterThan(reference.count, 100)
        // Float sums in another order may flip a near tie: at most 1 in 100 differs.
        let common = Set(reference).intersection(guided).count
        XCTAssertGreaterThanOrEqual(Double(common), 0.99 * Double(max(reference.count, guided.count)))
    }

    func testBadArgumentsThrow() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = directory.appendingPathComponent("1.pgm")
        try view(shift: 0).writePGM(to: url)
        let features = try FeatureSet.extract(imageURL: url)
        XCTAssertThrowsError(try DescriptorMatcher.matchGuided(features, features, fundamental: [1, 2], maxErrorPx: 2))
        XCTAssertThrowsError(try DescriptorMatcher.matchGuided(features, features, fundamental: Array(repeating: 0, count: 9),
                                                               maxErrorPx: 0))
    }
}
