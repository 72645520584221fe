import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// RGBA cut-outs mask themselves: features, blur scores and the dense stage's masks follow the
/// alpha channel, and no feature's descriptor window reaches a transparent pixel.
final class AlphaMaskTests: XCTestCase {
    static let cutout = Repository.datasets.appendingPathComponent("cutout-temple-12")

    /// An ellipse of blob texture (or flat grey) on a transparent black background.
    struct CutOut {
        var width: Int, height: Int
        var grey: [UInt8]
        var alpha: [UInt8]

        init(width: Int, height: Int, textured: Bool, seed: UInt64) {
            self.width = width
            self.height = height
            let texture = SyntheticGrayImage.blobs(width: width, height: height, count: width * height / 300, seed: seed)
            grey = []
            alpha = []
            for y in 0..<height {
                for x in 0..<width {
                    let u = (Double(x) + 0.5 - Double(width) / 2) / (0.36 * Double(width))
                    let v = (Double(y) + 0.5 - Double(height) / 2) / (0.34 * Double(height))
                    let inside = u * u + v * v <= 1
                    alpha.append(inside ? 255 : 0)
                    grey.append(inside ? (textured ? texture.pixels[y * width + x] : 128) : 0)
                }
            }
        }

        /// Writes the RGBA cut-out, and the same colours as RGB with the alpha as a mask file.
        func write(rgba: URL, rgb: URL, mask: URL) throws {
            try TestPNG.writeRGBA(zip(grey, alpha).map { SIMD4($0, $0, $0, $1) }, width: width, height: height, to: rgba)
            try TestPNG.writeRGB(grey.map { SIMD3($0, $0, $0) }, width: width, height: height, to: rgb)
            try TestPNG.writeGrey(alpha, width: width, height: height, to: mask)
        }
    }

    /// Distance from a keypoint's pixel centre to the nearest transparent pixel centre (alpha < 128).
    static func distanceToTransparent(_ keypoint: SIMD4<Float>, alpha: (Int, Int) -> UInt8, width: Int, height: Int,
                                      boundary: [SIMD2<Double>]) -> Double {
        let p = SIMD2(Double(Int(keypoint.x)) + 0.5, Double(Int(keypoint.y)) + 0.5)
        return boundary.map { (($0 - p) * ($0 - p)).sum() }.min().map { $0.squareRoot() } ?? .infinity
    }

    /// Transparent pixels with an opaque 4-neighbour, as pixel centres: the nearest transparent
    /// pixel to any opaque one is among them.
    static func transparentBoundary(alpha: (Int, Int) -> UInt8, width: Int, height: Int) -> [SIMD2<Double>] {
        var out: [SIMD2<Double>] = []
        for y in 0..<height {
            for x in 0..<width where alpha(x, y) < 128 {
                let opaqueNeighbour = [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)].contains { nx, ny in
                    nx >= 0 && ny >= 0 && nx < width && ny < height && alpha(nx, ny) >= 128
                }
                if opaqueNeighbour { out.append(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) }
            }
        }
        return out
    }

    func testNoFeatureReachesTheTransparentBackground() throws {
        let directory = try makeBridgeTestDirectory(self)
        let image = CutOut(width: 480, height: 360, textured: true, seed: 21)
        let rgba = directory.appendingPathComponent("cut.png"), rgb = directory.appendingPathComponent("rgb.png")
        let mask = directory.appendingPathComponent("mask.png")
        try image.write(rgba: rgba, rgb: rgb, mask: mask)
        var options = SIFTOptions()
        options.minFeatures = 0  // the alpha rule alone
        let fromAlpha = try FeatureSet.extract(imageURL: rgba, options: options)
        // The control: the same pixels with the alpha as an ordinary mask, which keeps features up to its edge.
        let fromMask = try FeatureSet.extract(imageURL: rgb, maskURL: mask, options: options)
        XCTAssertTrue(fromAlpha.maskFromAlpha)
        XCTAssertFalse(fromMask.maskFromAlpha)
        let checkpoint = directory.appendingPathComponent("cut.sift")
        try fromAlpha.save(to: checkpoint)
        XCTAssertTrue(try FeatureSet.load(from: checkpoint).maskFromAlpha)

        let alpha = { (x: Int, y: Int) in image.alpha[y * image.width + x] }
        let boundary = Self.transparentBoundary(alpha: alpha, width: image.width, height: image.height)
        func distance(_ k: SIMD4<Float>) -> Double {
            Self.distanceToTransparent(k, alpha: alpha, width: image.width, height: image.height, boundary: boundary)
        }
        let k = options.alphaMargin
        XCTAssertEqual(k, 10.607, accuracy: 0.001)
        // (a) Nothing within k sigma of a transparent pixel.
        let tooClose = fromAlpha.keypoints.filter { distance($0) <= k * Double($0.z) }
        XCTAssertEqual(tooClose.count, 0, "\(tooClose.prefix(3))")
        // The silhouette does make features: the plain mask keeps some right on it.
        XCTAssertGreaterThan(fromMask.keypoints.filter { distance($0) < 3 * Double($0.z) }.count, 10)
        // (b) Every feature whose window stays clear survives, unchanged.
        let clear = fromMask.keypoints.filter { distance($0) > k * Double($0.z) + 0.01 }
        let kept = Set(fromAlpha.keypoints.map { "\($0)" })
        XCTAssertGreaterThan(clear.count, 50)
        XCTAssertEqual(clear.filter { !kept.contains("\($0)") }.count, 0, "interior features lost")
        XCTAssertLessThanOrEqual(fromAlpha.count, fromMask.count)

        // A given mask applies too (AND): the left half only.
        var half = [UInt8](repeating: 0, count: image.width * image.height)
        for y in 0..<image.height { for x in 0..<(image.width / 2) { half[y * image.width + x] = 255 } }
        let halfURL = directory.appendingPathComponent("half.png")
        try TestPNG.writeGrey(half, width: image.width, height: image.height, to: halfURL)
        let both = try FeatureSet.extract(imageURL: rgba, maskURL: halfURL, options: options)
        XCTAssertGreaterThan(both.count, 20)
        XCTAssertLessThan(both.count, fromAlpha.count)
        XCTAssertTrue(both.keypoints.allSatisfy { $0.x < Float(image.width / 2) && distance($0) > k * Double($0.z) })
    }

    func testBlurScoreIgnoresTheSilhouette() throws {
        // A flat grey cut-out: no gradient inside, a strong one at its edge against the black.
        let directory = try makeBridgeTestDirectory(self)
        let image = CutOut(width: 320, height: 240, textured: false, seed: 22)
        let rgba = directory.appendingPathComponent("cut.png"), rgb = directory.appendingPathComponent("rgb.png")
        let mask = directory.appendingPathComponent("mask.png")
        try image.write(rgba: rgba, rgb: rgb, mask: mask)
        XCTAssertEqual(try FeatureSet.extract(imageURL: rgba).blurScore, 0, accuracy: 1e-12)
        XCTAssertGreaterThan(try FeatureSet.extract(imageURL: rgb, maskURL: mask).blurScore, 1e-4,
                             "the control: a plain mask sees the edge")
    }

    func testBundledCutOutFeaturesAndDenseMaskFollowTheAlpha() throws {
        let directory = try makeBridgeTestDirectory(self)
        let url = Self.cutout.appendingPathComponent("images/templeR0013.png")
        let decoded = try TestPNG.read(url)
        XCTAssertEqual(decoded.channels, 4)
        let alpha = { (x: Int, y: Int) in decoded.sample(x: x, y: y, channel: 3) }
        let boundary = Self.transparentBoundary(alpha: alpha, width: decoded.width, height: decoded.height)
        let features = try FeatureSet.extract(imageURL: url)
        XCTAssertTrue(features.maskFromAlpha)
        XCTAssertGreaterThan(features.count, 300, "the temple keeps its features")
        let margin = SIFTOptions().alphaMargin
        for keypoint in features.keypoints {
            let d = Self.distanceToTransparent(keypoint, alpha: alpha, width: decoded.width, height: decoded.height,
                                               boundary: boundary)
            XCTAssertGreaterThan(d, margin * Double(keypoint.z), "\(keypoint)")
        }

        // (c) The dense stage's undistorted mask is the alpha (a pinhole camera maps every pixel to itself).
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [1520.4, 1525.9, 320, 240])
        let view = directory.appendingPathComponent("view.png"), mask = directory.appendingPathComponent("mask.png")
        _ = try Undistortion.undistort(image: url, maskFile: nil, keepRect: nil, camera: camera, maxSide: 0,
                                       outputImage: view, outputMask: mask)
        let dense = try TestPNG.read(mask)
        XCTAssertEqual(dense.channels, 1)
        var mismatches = 0, kept = 0
        for y in 0..<480 {
            for x in 0..<640 {
                let expected: UInt8 = alpha(x, y) >= 128 ? 255 : 0
                if dense.sample(x: x, y: y, channel: 0) != expected { mismatches += 1 }
                if expected == 255 { kept += 1 }
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertGreaterThan(kept, 30000, "the temple is kept")
        // A keep-rectangle combines with it (AND).
        _ = try Undistortion.undistort(image: url, maskFile: nil, keepRect: CGRect(x: 0, y: 0, width: 300, height: 480),
                                       camera: camera, maxSide: 0, outputImage: view, outputMask: mask)
        let both = try TestPNG.read(mask)
        mismatches = 0
        for y in 0..<480 {
            for x in 0..<640 where both.sample(x: x, y: y, channel: 0) != (alpha(x, y) >= 128 && x < 300 ? 255 : 0) {
                mismatches += 1
            }
        }
        XCTAssertEqual(mismatches, 0)
    }

    func testCutOutCaptureEndToEnd() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cutout-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: output) }
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let report = try ReconstructionPipeline(input: Self.cutout, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.masks, "alpha channel of 12 images")
        XCTAssertEqual(report.imagesRegistered, 12)
        let comparison = try comparePoses(model: output.appendingPathComponent("sparse"),
                                          reference: Self.cutout.appendingPathComponent("gt_sparse"))
        XCTAssertGreaterThan(comparison.auc.at5, 80, "pair AUC@5 against ground truth")
        XCTAssertEqual(report.texture?.verdict, "textured")
        let json = try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any]
        XCTAssertEqual(json?["masks"] as? String, "alpha channel of 12 images")
    }
}
