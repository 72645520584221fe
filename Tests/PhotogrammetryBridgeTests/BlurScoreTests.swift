import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// The blur score (gradient energy) on synthetic grey images: sharp texture scores far above the
/// same texture blurred, a flat image scores zero.
final class BlurScoreTests: XCTestCase {
    /// Random 8x8-pixel blocks of grey: hard edges everywhere.
    func blocks(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        let cells = (0..<((width / 8 + 1) * (height / 8 + 1))).map { _ in UInt8(rng.uniform(0, 255)) }
        return (0..<(width * height)).map { i in cells[(i / width / 8) * (width / 8 + 1) + (i % width) / 8] }
    }

    /// A separable box blur of the given radius (what a shaken hand does, roughly).
    func boxBlur(_ pixels: [UInt8], width: Int, height: Int, radius: Int) -> [UInt8] {
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var output = input
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0.0, count = 0.0
                    for d in -radius...radius {
                        let xx = horizontal ? x + d : x, yy = horizontal ? y : y + d
                        guard xx >= 0, xx < width, yy >= 0, yy < height else { continue }
                        sum += input[yy * width + xx]
                        count += 1
                    }
                    output[y * width + x] = sum / count
                }
            }
            return output
        }
        let blurred = pass(pass(pixels.map(Double.init), horizontal: true), horizontal: false)
        return blurred.map { UInt8(min(255, max(0, $0.rounded()))) }
    }

    func testBlurLowersTheScore() throws {
        let width = 200, height = 150
        let sharp = blocks(width: width, height: height, seed: 3)
        let sharpScore = try FeatureSet.blurScore(gray: sharp, width: width, height: height)
        let slightly = try FeatureSet.blurScore(gray: boxBlur(sharp, width: width, height: height, radius: 1),
                                                width: width, height: height)
        let badly = try FeatureSet.blurScore(gray: boxBlur(sharp, width: width, height: height, radius: 4),
                                             width: width, height: height)
        XCTAssertGreaterThan(sharpScore, 0.005)
        XCTAssertLessThan(slightly, sharpScore)
        XCTAssertLessThan(badly, 0.3 * sharpScore, "a 9-pixel box blur falls below the default floor")
        XCTAssertGreaterThan(slightly, 0.3 * sharpScore, "a 3-pixel blur is still usable")
    }

    func testFlatImageScoresZeroAndBadInputThrows() throws {
        let flat = [UInt8](repeating: 128, count: 64 * 48)
        XCTAssertEqual(try FeatureSet.blurScore(gray: flat, width: 64, height: 48), 0, accuracy: 1e-12)
        XCTAssertThrowsError(try FeatureSet.blurScore(gray: [], width: 0, height: 0))
    }

    func testScoreIsAboutResolutionIndependent() throws {
        // The same picture at two sizes scores alike: both are measured at one working size.
        let small = blocks(width: 320, height: 240, seed: 5)
        var large = [UInt8](repeating: 0, count: 1280 * 960)
        for y in 0..<960 { for x in 0..<1280 { large[y * 1280 + x] = small[(y / 4) * 320 + x / 4] } }
        let a = try FeatureSet.blurScore(gray: small, width: 320, height: 240)
        let b = try FeatureSet.blurScore(gray: large, width: 1280, height: 960)
        XCTAssertEqual(b / a, 1, accuracy: 0.5)
    }

    func testExtractedFeaturesCarryTheScore() throws {
        let image = Repository.datasets.appendingPathComponent("templeRing-12/images/templeR0013.png")
        let features = try FeatureSet.extract(imageURL: image, maskURL: nil, keepRect: nil, options: SIFTOptions())
        XCTAssertGreaterThan(features.blurScore, 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blur-\(UUID().uuidString).sift")
        defer { try? FileManager.default.removeItem(at: file) }
        try features.save(to: file)
        XCTAssertEqual(try FeatureSet.load(from: file).blurScore, features.blurScore, accuracy: 1e-6 * features.blurScore,
                       "the checkpoint keeps the score")
    }
}
