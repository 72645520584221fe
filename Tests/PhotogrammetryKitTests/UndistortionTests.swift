import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Undistortion to pinhole views: where points land and how downscaling scales the intrinsics.
final class UndistortionTests: XCTestCase {
    /// Blob centres in the pinhole image of a 320 x 240 camera, away from the border.
    private let centres: [SIMD2<Double>] = {
        var out: [SIMD2<Double>] = []
        for i in 0..<5 {
            for j in 0..<4 { out.append(SIMD2<Double>(30 + 65 * Double(i), 30 + 60 * Double(j))) }
        }
        return out
    }()

    /// Renders the distorted image of dark-on-grey Gaussian blobs whose pinhole positions are
    /// `centres`: every distorted pixel centre is undistorted and the pinhole blobs evaluated there.
    private func distortedBlobs(camera: Camera) -> SyntheticGrayImage {
        var pixels = [UInt8](repeating: 0, count: camera.width * camera.height)
        let f = camera.focalLengths, c = camera.principalPoint
        for y in 0..<camera.height {
            for x in 0..<camera.width {
                let n = camera.normalized(SIMD2(Double(x) + 0.5, Double(y) + 0.5))
                let p = SIMD2(f.x * n.x + c.x, f.y * n.y + c.y)
                var value = 200.0
                for centre in centres {
                    let d = p - centre
                    value -= 150 * exp(-(d * d).sum() / (2 * 3.0 * 3.0))
                }
                pixels[y * camera.width + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return SyntheticGrayImage(width: camera.width, height: camera.height, pixels: pixels)
    }

    /// For each expected position, the offset of the nearest SIFT keypoint of the image.
    private func offsets(of url: URL, expected: [SIMD2<Double>]) throws -> [SIMD2<Double>] {
        let keypoints = try FeatureSet.extract(imageURL: url).keypoints
        return expected.map { e -> SIMD2<Double> in
            var best = SIMD2<Double>(.infinity, .infinity)
            for k in keypoints {
                let d = SIMD2<Double>(Double(k.x), Double(k.y)) - e
                if length(d) < length(best) { best = d }
            }
            return best
        }
    }

    private func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }

    func testRadialCameraPointsLandWhereThePinholeProjectsThem() throws {
        let directory = try makeBridgeTestDirectory(self)
        let camera = Camera(id: CameraID(1), model: .radial, width: 320, height: 240,
                            params: [260, 161, 118, -0.12, 0.03])
        let input = directory.appendingPathComponent("distorted.pgm")
        try distortedBlobs(camera: camera).writePGM(to: input)
        // The blobs really are displaced in the distorted image (up to several pixels).
        let before = try offsets(of: input, expected: centres)
        XCTAssertGreaterThan(before.map(length).max() ?? 0, 3)

        let output = directory.appendingPathComponent("view.png"), mask = directory.appendingPathComponent("mask.png")
        let view = try Undistortion.undistort(image: input, maskFile: nil, keepRect: nil, camera: camera, maxSide: 0,
                                              outputImage: output, outputMask: mask)
        XCTAssertEqual(view.width, 320)
        XCTAssertEqual(view.height, 240)
        XCTAssertEqual(view.fx, 260)
        XCTAssertEqual(view.fy, 260)
        XCTAssertEqual(view.cx, 161)
        XCTAssertEqual(view.cy, 118)
        XCTAssertEqual(view.camFromWorld, .identity)
        XCTAssertTrue(FileManager.default.fileExists(atPath: mask.path))
        let after = try offsets(of: output, expected: centres)
        // SIFT has its own sub-pixel bias: compared with a pinhole rendering of the same blobs.
        let control = directory.appendingPathComponent("pinhole.pgm")
        try distortedBlobs(camera: Camera(id: CameraID(1), model: .pinhole, width: 320, height: 240,
                                          params: [260, 260, 161, 118])).writePGM(to: control)
        let reference = try offsets(of: control, expected: centres)
        XCTAssertLessThan(zip(after, reference).map { length($0 - $1) }.max() ?? .infinity, 0.1)
    }

    func testMaxSideDownscalesWithScaledIntrinsics() throws {
        let directory = try makeBridgeTestDirectory(self)
        let camera = Camera(id: CameraID(1), model: .simpleRadial, width: 320, height: 240,
                            params: [250, 158, 122, -0.08])
        let input = directory.appendingPathComponent("distorted.pgm")
        try distortedBlobs(camera: camera).writePGM(to: input)
        let output = directory.appendingPathComponent("half.png")
        let view = try Undistortion.undistort(image: input, maskFile: nil, keepRect: CGRect(x: 10, y: 10, width: 300, height: 220),
                                              camera: camera, maxSide: 160, outputImage: output, outputMask: nil)
        XCTAssertEqual(view.width, 160)
        XCTAssertEqual(view.height, 120)
        XCTAssertEqual(view.fx, 125, accuracy: 1e-9)
        XCTAssertEqual(view.cx, 79, accuracy: 1e-9)
        XCTAssertEqual(view.cy, 61, accuracy: 1e-9)
        // COLMAP's convention: a pinhole position p lands at p / 2 in the half-size view.
        let expected = centres.map { $0 * 0.5 }
        let after = try offsets(of: output, expected: expected)
        // Against the same blobs seen by a pinhole camera and downscaled alike (SIFT's own
        // sub-pixel bias cancels); INTER_AREA's exact 2:1 average keeps p -> p / 2.
        let pinhole = Camera(id: CameraID(1), model: .pinhole, width: 320, height: 240, params: [250, 250, 158, 122])
        let control = directory.appendingPathComponent("pinhole.pgm"), controlHalf = directory.appendingPathComponent("pinhole.png")
        try distortedBlobs(camera: pinhole).writePGM(to: control)
        _ = try Undistortion.undistort(image: control, maskFile: nil, keepRect: nil, camera: pinhole, maxSide: 160,
                                       outputImage: controlHalf, outputMask: nil)
        let reference = try offsets(of: controlHalf, expected: expected)
        let found = zip(after, reference).filter { length($0.0) < 2 && length($0.1) < 2 }
        XCTAssertGreaterThanOrEqual(found.count, 14)
        XCTAssertLessThan(found.map { length($0.0 - $0.1) }.max() ?? .infinity, 0.1)
        XCTAssertLessThan(found.map { length($0.0) }.max() ?? .infinity, 0.4)
    }

    func testMissingImageNamesTheFile() throws {
        let directory = try makeBridgeTestDirectory(self)
        let camera = Camera(id: CameraID(1), model: .pinhole, width: 32, height: 24, params: [30, 30, 16, 12])
        XCTAssertThrowsError(try Undistortion.undistort(
            image: directory.appendingPathComponent("absent.jpg"), maskFile: nil, keepRect: nil, camera: camera,
            maxSide: 0, outputImage: directory.appendingPathComponent("o.png"), outputMask: nil)) { error in
            XCTAssertTrue((error as? CVisionError)?.message.contains("absent.jpg") ?? false)
        }
    }
}
