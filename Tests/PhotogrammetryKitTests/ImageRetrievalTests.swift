import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Retrieval ranks the images that share landmarks first, on a seeded synthetic capture.
final class ImageRetrievalTests: XCTestCase {
    /// A synthetic capture at the descriptor level: landmarks spread around a circle, each with its
    /// own RootSIFT-like descriptor (non-negative, unit length); image k looks from angle φ_k and
    /// observes, with noise and drop-outs, the landmarks within `halfView` of it, plus clutter
    /// seen nowhere else. Images are numbered in a shuffled order, so index order tells nothing.
    struct LandmarkCapture {
        var descriptors: [[Float]] = []
        /// Landmarks each pair of images shares, by image index.
        var shared: [[Int]] = []
        /// Image index -> position on the circle (0..<count).
        var position: [Int] = []

        init(images: Int, landmarks: Int, halfView: Double, noise: Float, clutter: Int, seed: UInt64) {
            var rng = SplitMix64(seed: seed)
            func randomDescriptor() -> [Float] {
                let raw = (0..<128).map { _ in Float(abs(rng.gaussian())) }
                let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
                return raw.map { $0 / norm }
            }
            let angles = (0..<landmarks).map { _ in rng.uniform(0, 2 * .pi) }
            let words = (0..<landmarks).map { _ in randomDescriptor() }
            var order = Array(0..<images)
            for k in stride(from: images - 1, to: 0, by: -1) { order.swapAt(k, Int(rng.next() % UInt64(k + 1))) }
            position = order
            var seen = Array(repeating: Set<Int>(), count: images)
            descriptors = Array(repeating: [], count: images)
            for image in 0..<images {
                let view = 2 * .pi * Double(position[image]) / Double(images)
                for (l, angle) in angles.enumerated() {
                    let d = abs(remainder(angle - view, 2 * .pi))
                    guard d < halfView, rng.uniform() < 0.7 else { continue }
                    var observed = words[l].map { max(0, $0 + noise * Float(rng.gaussian())) }
                    let norm = observed.reduce(0) { $0 + $1 * $1 }.squareRoot()
                    observed = observed.map { $0 / norm }
                    descriptors[image] += observed
                    seen[image].insert(l)
                }
                for _ in 0..<clutter { descriptors[image] += randomDescriptor() }
            }
            shared = (0..<images).map { a in (0..<images).map { b in a == b ? 0 : seen[a].intersection(seen[b]).count } }
        }
    }

    func testRetrievalRanksOverlappingImagesFirst() throws {
        let capture = LandmarkCapture(images: 60, landmarks: 6000, halfView: 0.35, noise: 0.02, clutter: 150, seed: 7)
        let index = try ImageRetrieval(descriptors: capture.descriptors, threads: 2)
        XCTAssertEqual(index.numImages, 60)
        let totalDescriptors = capture.descriptors.reduce(0) { $0 + $1.count / 128 }
        XCTAssertEqual(Double(index.numWords), Double(totalDescriptors) / 128, accuracy: 2,
                       "one word per 128 descriptors")
        let k = 8
        let neighbours = try index.nearestNeighbours(count: k)
        var hits = 0, strongFound = 0, strongTotal = 0
        for (image, list) in neighbours.enumerated() {
            XCTAssertEqual(list.count, k)
            XCTAssertFalse(list.contains { $0.image == image }, "an image is not its own neighbour")
            XCTAssert(zip(list, list.dropFirst()).allSatisfy { $0.score >= $1.score }, "most similar first")
            hits += list.filter { capture.shared[image][$0.image] > 0 }.count
            // Images sharing at least 45 % of this image's landmark observations: those up to two
            // steps away on either side (about 0.6 and 0.5 with a 0.7 detection rate; three steps 0.39).
            let own = capture.descriptors[image].count / 128 - 150
            let strong = (0..<60).filter { Double(capture.shared[image][$0]) >= 0.45 * Double(own) }
            strongTotal += strong.count
            strongFound += strong.filter { s in list.prefix(4).contains { $0.image == s } }.count
        }
        // With overlap only within 0.7 rad, an image has about 12 overlapping images of 59.
        XCTAssertGreaterThan(Double(hits) / Double(60 * k), 0.97, "precision at 8")
        XCTAssertGreaterThan(strongTotal, 120)
        XCTAssertGreaterThan(Double(strongFound) / Double(strongTotal), 0.97, "strongly overlapping images in the top 4")
    }

    func testRetrievalIsDeterministicForASeed() throws {
        let capture = LandmarkCapture(images: 20, landmarks: 2000, halfView: 0.5, noise: 0.02, clutter: 100, seed: 3)
        let a = try ImageRetrieval(descriptors: capture.descriptors, threads: 1).nearestNeighbours(count: 5)
        let b = try ImageRetrieval(descriptors: capture.descriptors, threads: 2).nearestNeighbours(count: 5)
        XCTAssertEqual(a, b, "same seed, any thread count: the same ranking and scores")
        var options = RetrievalOptions()
        options.seed = 11
        let c = try ImageRetrieval(descriptors: capture.descriptors, options: options).nearestNeighbours(count: 5)
        XCTAssertNotEqual(a.flatMap { $0.map(\.score) }, c.flatMap { $0.map(\.score) }, "another seed, another vocabulary")
        // Either seed finds each image's two neighbours on the circle (shares of 0.69 and 0.37).
        let imageAt = Dictionary(uniqueKeysWithValues: capture.position.enumerated().map { ($1, $0) })
        for ranking in [a, c] {
            let right = ranking.enumerated().filter { image, list in
                let p = capture.position[image]
                return Set(list.prefix(2).map(\.image)) == [imageAt[(p + 1) % 20]!, imageAt[(p + 19) % 20]!]
            }.count
            XCTAssertGreaterThanOrEqual(right, 18, "\(ranking.map { $0.prefix(2).map(\.image) })")
        }
    }

    func testImagesSharingNothingAreNotNeighbours() throws {
        // Two groups of images on disjoint landmarks: no image retrieves one of the other group.
        var rng = SplitMix64(seed: 5)
        func randomDescriptor() -> [Float] {
            let raw = (0..<128).map { _ in Float(abs(rng.gaussian())) }
            let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return raw.map { $0 / norm }
        }
        let groups = (0..<2).map { _ in (0..<400).map { _ in randomDescriptor() } }
        let descriptors = (0..<10).map { image in groups[image % 2].flatMap { $0 } }
        let neighbours = try ImageRetrieval(descriptors: descriptors).nearestNeighbours(count: 9)
        for (image, list) in neighbours.enumerated() {
            XCTAssertGreaterThanOrEqual(list.count, 4)
            XCTAssert(list.prefix(4).allSatisfy { $0.image % 2 == image % 2 }, "image \(image): its own group first")
            XCTAssert(list.prefix(4).allSatisfy { $0.score > 0.5 }, "identical images score near 1")
        }
    }

    func testRealFeaturesOfOverlappingCropsRankFirst() throws {
        // A strip of blob texture cut into 14 crops 140 px apart: neighbours overlap by 65 %, by
        // 30 % two apart, not at all three apart.
        let canvas = SyntheticGrayImage.blobs(width: 400 + 13 * 140, height: 300, count: 2400, seed: 21)
        let directory = try makeBridgeTestDirectory(self)
        let features = try (0..<14).map { i -> FeatureSet in
            let url = directory.appendingPathComponent("crop\(i).pgm")
            try canvas.cropped(x: 140 * i, y: 0, width: 400, height: 300).writePGM(to: url)
            return try FeatureSet.extract(imageURL: url)
        }
        let neighbours = try ImageRetrieval(features: features).nearestNeighbours(count: 2)
        for (i, list) in neighbours.enumerated() {
            XCTAssertEqual(list.count, 2)
            XCTAssert(list.allSatisfy { abs($0.image - i) <= 2 }, "crop \(i): \(list.map(\.image))")
            XCTAssert(list.contains { abs($0.image - i) == 1 }, "crop \(i): a direct neighbour first or second")
        }
    }
}
