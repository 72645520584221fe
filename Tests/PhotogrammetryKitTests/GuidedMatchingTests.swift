import Foundation
import XCTest
@testable import PhotogrammetryKit

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

    func testEpipolarBandRecoversMatchesThatRepetitionHides() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url1 = directory.appendingPathComponent("1.pgm"), url2 = directory.appendingPathComponent("2.pgm")
        try view(shift: 0).writePGM(to: url1)
        try view(shift: 41).writePGM(to: url2)
        let first = try FeatureSet.extract(imageURL: url1), second = try FeatureSet.extract(imageURL: url2)
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
