import XCTest
@testable import PhotogrammetryCore
import PhotogrammetryTestSupport

final class CameraModelTests: XCTestCase {
    private let cameras: [Camera] = [
        Camera(id: CameraID(1), model: .simplePinhole, width: 1000, height: 800, params: [800, 500, 400]),
        Camera(id: CameraID(2), model: .pinhole, width: 1000, height: 800, params: [800, 820, 510, 390]),
        Camera(id: CameraID(3), model: .simpleRadial, width: 1000, height: 800, params: [800, 500, 400, -0.08]),
        Camera(id: CameraID(4), model: .radial, width: 1000, height: 800, params: [800, 500, 400, -0.1, 0.03]),
        Camera(id: CameraID(5), model: .simpleRadialFisheye, width: 1000, height: 800, params: [350, 500, 400, 0.05]),
    ]

    func testRoundTripAllModels() throws {
        var rng = SplitMix64(seed: 2)
        let points = (0..<200).map { _ in SIMD3(rng.uniform(-0.6, 0.6), rng.uniform(-0.5, 0.5), 1.0) * rng.uniform(1, 10) }
        for camera in cameras {
            let pixels = try camera.project(points: points)
            let normalized = try camera.unproject(pixels: pixels)
            for (p, n) in zip(points, normalized) {
                XCTAssertEqual(n.x, p.x / p.z, accuracy: 1e-12, camera.model.name)
                XCTAssertEqual(n.y, p.y / p.z, accuracy: 1e-12, camera.model.name)
            }
            // The C++ model agrees with the Swift scene model.
            for (p, pixel) in zip(points, pixels) {
                let swift = try XCTUnwrap(camera.project(p))
                XCTAssertEqual(length(SIMD3(swift.x - pixel.x, swift.y - pixel.y, 0)), 0, accuracy: 1e-9)
            }
        }
    }

    func testHandComputedValues() throws {
        // u = 0.5, v = -0.25: r2 = 0.3125.
        let point = SIMD3<Double>(1, -0.5, 2)
        // SIMPLE_RADIAL, k = -0.08: radial = 1 - 0.025 = 0.975 → (800·0.4875 + 500, 800·-0.24375 + 400).
        let simpleRadial = try cameras[2].project(points: [point])[0]
        XCTAssertEqual(simpleRadial.x, 890, accuracy: 1e-9)
        XCTAssertEqual(simpleRadial.y, 205, accuracy: 1e-9)
        // RADIAL, k1 = -0.1, k2 = 0.03: radial = 1 - 0.03125 + 0.0029296875 = 0.9716796875.
        let radial = try cameras[3].project(points: [point])[0]
        XCTAssertEqual(radial.x, 800 * 0.5 * 0.9716796875 + 500, accuracy: 1e-9)
        XCTAssertEqual(radial.y, 800 * -0.25 * 0.9716796875 + 400, accuracy: 1e-9)
        // PINHOLE: (820·... ) fx, fy apart.
        let pinhole = try cameras[1].project(points: [point])[0]
        XCTAssertEqual(pinhole.x, 800 * 0.5 + 510, accuracy: 1e-12)
        XCTAssertEqual(pinhole.y, 820 * -0.25 + 390, accuracy: 1e-12)
        let simple = try cameras[0].project(points: [point])[0]
        XCTAssertEqual(simple, SIMD2(900, 200))
    }

    func testFisheyeHandComputedAndWideRays() throws {
        // u = 0.5, v = -0.25: r = √0.3125, θ = atan r; radius f θ (1 + k θ²) along (u, v) / r.
        let point = SIMD3<Double>(1, -0.5, 2)
        let r = 0.3125.squareRoot(), theta = atan(r), scale = theta / r * (1 + 0.05 * theta * theta)
        let pixel = try cameras[4].project(points: [point])[0]
        XCTAssertEqual(pixel.x, 350 * 0.5 * scale + 500, accuracy: 1e-9)
        XCTAssertEqual(pixel.y, 350 * -0.25 * scale + 400, accuracy: 1e-9)
        // A ray 70° off the axis (tan 70° = 2.75 in normalised units) stays in a 1000 px frame
        // and comes back exactly: the field of view no pinhole model could hold.
        let wide = SIMD3<Double>(tan(70 * Double.pi / 180), 0, 1)
        let widePixel = try cameras[4].project(points: [wide])[0]
        XCTAssertLessThan(widePixel.x, 1000)
        XCTAssertEqual(try cameras[4].unproject(pixels: [widePixel])[0].x, wide.x, accuracy: 1e-9)
        XCTAssertEqual(cameras[4].normalized(widePixel).x, wide.x, accuracy: 1e-9)
    }

    func testBehindCameraIsNaN() throws {
        let pixels = try cameras[2].project(points: [SIMD3(0, 0, -1), SIMD3(0, 0, 0)])
        XCTAssertTrue(pixels.allSatisfy { $0.x.isNaN && $0.y.isNaN })
    }
}
