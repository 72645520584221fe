import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Finer features for images a model leaves out: one SIFT octave further down, appended to the
/// features they have, and the images chosen to get them.
final class FinerFeaturesTests: XCTestCase {
    /// Grey with dense Gaussian dots of sigma 0.5-1 px: texture finer than OpenCV's finest octave.
    static func fineDots(width: Int, height: Int, seed: UInt64) -> SyntheticGrayImage {
        var rng = BridgeTestRNG(seed: seed)
        var field = [Double](repeating: 128, count: width * height)
        for _ in 0..<(width * height / 60) {
            let cx = Double.random(in: 0..<Double(width), using: &rng)
            let cy = Double.random(in: 0..<Double(height), using: &rng)
            let sigma = Double.random(in: 0.5...1.0, using: &rng)
            let amplitude = Double.random(in: 40...110, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
            for y in max(0, Int(cy) - 4)...min(height - 1, Int(cy) + 4) {
                for x in max(0, Int(cx) - 4)...min(width - 1, Int(cx) + 4) {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    field[y * width + x] += amplitude * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma))
                }
            }
        }
        return SyntheticGrayImage(width: width, height: height, pixels: field.map { UInt8(max(0, min(255, $0.rounded()))) })
    }

    /// OpenCV's finest keypoint sigma at the working size (octave -1, layer 1 less half a layer).
    static let finestSigma = 1.6 * pow(2.0, 0.5 / 3) / 2

    func testFinerFeaturesKeepTheBaseAndAddTheOctaveBelowThatMatches() throws {
        let directory = try makeBridgeTestDirectory(self)
        let surface = Self.fineDots(width: 720, height: 480, seed: 5)
        let left = directory.appendingPathComponent("left.pgm"), right = directory.appendingPathComponent("right.pgm")
        try surface.cropped(x: 0, y: 0, width: 640, height: 480).writePGM(to: left)
        try surface.cropped(x: 80, y: 0, width: 640, height: 480).writePGM(to: right)
        let options = SIFTOptions()
        let finerOptions = FinerFeatures()
        let baseLeft = try FeatureSet.extract(imageURL: left, options: options)
        let baseRight = try FeatureSet.extract(imageURL: right, options: options)
        let finerLeft = try baseLeft.addingFinerFeatures(imageURL: left, options: finerOptions.siftOptions(options, base: baseLeft))
        let finerRight = try baseRight.addingFinerFeatures(imageURL: right, options: finerOptions.siftOptions(options, base: baseRight))

        // The base keeps its keypoints, descriptors and colours at their indices.
        XCTAssertEqual(Array(finerLeft.keypoints.prefix(baseLeft.count)), baseLeft.keypoints)
        XCTAssertEqual(finerLeft.descriptor(at: baseLeft.count - 1), baseLeft.descriptor(at: baseLeft.count - 1))
        XCTAssertEqual(Array(finerLeft.colors.prefix(baseLeft.count)), baseLeft.colors)
        XCTAssertEqual(finerLeft.imageWidth, 640)
        XCTAssertEqual(finerLeft.contrastThreshold, baseLeft.contrastThreshold)
        // The base holds nothing below OpenCV's finest octave, the added ones nothing above it.
        let cut = Float(Self.finestSigma)
        XCTAssertGreaterThanOrEqual(baseLeft.keypoints.map(\.z).min() ?? 0, cut * 0.999)
        let added = finerLeft.keypoints.dropFirst(baseLeft.count)
        XCTAssertGreaterThan(added.count, 2 * baseLeft.count, "the octave below holds most of this texture")
        XCTAssertLessThan(added.map(\.z).max() ?? .infinity, cut)
        XCTAssertLessThanOrEqual(finerLeft.count, options.maxFeatures)

        // The added keypoints are the surface's: they match across the views where the shift
        // puts them, several times as many as the base's.
        let baseMatches = try LowTextureTests.consistentMatches(baseLeft, baseRight, shift: 80)
        let finerMatches = try LowTextureTests.consistentMatches(finerLeft, finerRight, shift: 80)
        XCTAssertGreaterThan(finerMatches, 3 * baseMatches)
        XCTAssertGreaterThan(Double(finerMatches), 0.5 * Double(added.count))

        // Capped at maxFeatures in all, the base first.
        var capped = finerOptions.siftOptions(options, base: baseLeft)
        capped.maxFeatures = baseLeft.count + 10
        let few = try baseLeft.addingFinerFeatures(imageURL: left, options: capped)
        XCTAssertEqual(few.count, baseLeft.count + 10)
        XCTAssertEqual(Array(few.keypoints.prefix(baseLeft.count)), baseLeft.keypoints)
        // Deterministic.
        XCTAssertEqual(try baseLeft.addingFinerFeatures(imageURL: left, options: finerOptions.siftOptions(options, base: baseLeft)).keypoints,
                       finerLeft.keypoints)
    }

    func testFinerOctaveContrastFollowsTheImagesOwnThreshold() {
        var options = SIFTOptions()
        options.minContrastThreshold = 0.005
        let finer = FinerFeatures()
        XCTAssertEqual(finer.contrastFactor, 0.5)
        XCTAssertEqual(finer.siftOptions(options, baseThreshold: 0.04).contrastThreshold, 0.02, accuracy: 1e-12)
        XCTAssertEqual(finer.siftOptions(options, baseThreshold: 0.006).contrastThreshold, 0.005, accuracy: 1e-12,
                       "never below the floor")
    }

    /// A graph of `n` images in a row with the given verified match counts.
    func graph(_ n: Int, _ counts: [(Int, Int, Int)]) -> MatchGraph {
        MatchGraph(numImages: n, edges: counts.map { a, b, count in
            MatchGraph.Edge(first: a, second: b, matches: (0..<count).map { SIMD2(Int32($0), Int32($0)) },
                            configuration: .calibrated)
        })
    }

    func testASequenceGivesTheNearestFramesOnEitherSide() {
        let finer = FinerFeatures()
        let g = graph(20, [])
        XCTAssertEqual(finer.images(leftOut: [10], graph: g, isSequence: true), [8, 9, 10, 11, 12])
        XCTAssertEqual(finer.images(leftOut: [9, 10], graph: g, isSequence: true), [7, 8, 9, 10, 11, 12])
        XCTAssertEqual(finer.images(leftOut: [0], graph: g, isSequence: true), [0, 1, 2, 3, 4], "all after the first")
        XCTAssertEqual(finer.images(leftOut: [], graph: g, isSequence: true), [])
    }

    func testUnorderedImagesGiveTheirStrongestPartners() {
        var finer = FinerFeatures()
        finer.partners = 2
        let g = graph(8, [(0, 3, 40), (3, 5, 90), (3, 6, 15), (1, 2, 300), (2, 3, 60)])
        XCTAssertEqual(finer.images(leftOut: [3], graph: g, isSequence: false), [2, 3, 5])
        XCTAssertEqual(finer.images(leftOut: [7], graph: g, isSequence: false), [7], "no pairs: itself alone")
    }

    func testTooManyImagesOrOffGivesNone() {
        var finer = FinerFeatures()
        finer.maxImages = 6
        let g = graph(50, [])
        XCTAssertEqual(finer.images(leftOut: [10], graph: g, isSequence: true).count, 5)
        XCTAssertEqual(finer.images(leftOut: [10, 30], graph: g, isSequence: true), [], "10 would be chosen")
        finer.maxImages = 40
        finer.enabled = false
        XCTAssertEqual(finer.images(leftOut: [10], graph: g, isSequence: true), [])
        finer.enabled = true
        finer.contrastFactor = 0
        XCTAssertThrowsError(try finer.validate())
    }
}
