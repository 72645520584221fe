import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
import PhotogrammetryTestSupport

/// The core's rasteriser against geometry whose image is known exactly: a cube's silhouette,
/// occlusion, and a texture shown texel for pixel.
final class RasterizerTests: XCTestCase {
    /// The convex hull of `points`, counter-clockwise (Andrew's monotone chain).
    private func hull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        func turn(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = [], upper: [SIMD2<Double>] = []
        for p in sorted {
            while lower.count >= 2, turn(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2, turn(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    func testACubesSilhouetteIsItsProjectedHullExactly() throws {
        let renderer = try MeshRenderer(RenderTestScenes.cube())
        let eyes: [SIMD3<Double>] = [SIMD3(2.7, 1.9, 3.3), SIMD3(-1.8, -2.2, 2.9), SIMD3(0.5, 3.4, -2.1), SIMD3(3.1, 0.52, 0.47)]
        var coveredTotal = 0
        for eye in eyes {
            let pose = RenderViews.lookAt(SIMD3(0.47, 0.53, 0.51), from: eye)
            let camera = RenderCamera(width: 173, height: 131, focalLengths: SIMD2(151.3, 147.9),
                                      principalPoint: SIMD2(88.37, 61.91), camFromWorld: pose)
            let image = try renderer.render(camera)
            let corners = (0..<8).map { (k: Int) -> SIMD3<Double> in
                let x = Double(k & 1), y = Double((k >> 1) & 1), z = Double((k >> 2) & 1)
                return SIMD3<Double>(x, y, z)
            }
            let polygon = hull(try corners.map { try XCTUnwrap(camera.project($0)) })
            var mismatches = 0, covered = 0
            for y in 0..<camera.height {
                for x in 0..<camera.width {
                    let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                    var inside = true, nearest = Double.infinity
                    for k in polygon.indices {
                        let a = polygon[k], b = polygon[(k + 1) % polygon.count]
                        let d = b - a
                        let side = (d.x * (p.y - a.y) - d.y * (p.x - a.x)) / (d * d).sum().squareRoot()
                        if side < 0 { inside = false }
                        // Distance to the edge as a segment's line is enough: the hull is convex.
                        nearest = min(nearest, abs(side))
                    }
                    let drawn = image[x, y].last == 255
                    if drawn { covered += 1 }
                    if nearest <= 1e-6 { continue }
                    if drawn != inside { mismatches += 1 }
                }
            }
            XCTAssertEqual(mismatches, 0, "eye \(eye)")
            XCTAssertGreaterThan(covered, 1500, "the cube fills part of the frame")
            coveredTotal += covered
        }
        XCTAssertLessThan(coveredTotal, 4 * 173 * 131)
    }

    func testTheNearerSquareHidesTheFartherWhateverTheOrder() throws {
        let red = RenderTestScenes.square(low: -0.5, high: 0.5, depth: 2, color: SIMD3(255, 0, 0))
        let blue = RenderTestScenes.square(low: -0.2, high: 1.8, depth: 4, color: SIMD3(0, 0, 255))
        let camera = RenderTestScenes.frontCamera(width: 100, height: 100, focal: 48)
        // Red spans 38...62 in x and y, blue 47.6...71.6: they overlap on 47.6...62, pixels 48...61.
        for order in [[red, blue], [blue, red]] {
            let image = try MeshRenderer(RenderTestScenes.merged(order)).render(camera)
            var counts = [String: Int]()
            for y in 0..<100 {
                for x in 0..<100 {
                    let px = Double(x) + 0.5, py = Double(y) + 0.5
                    let inRed = px > 38 && px < 62 && py > 38 && py < 62
                    let inBlue = px > 47.6 && px < 71.6 && py > 47.6 && py < 71.6
                    let expected: [UInt8] = inRed ? [255, 0, 0, 255] : inBlue ? [0, 0, 255, 255] : [0, 0, 0, 0]
                    XCTAssertEqual(Array(image[x, y]), expected, "pixel (\(x), \(y))")
                    if inRed && inBlue { counts["overlap", default: 0] += 1 }
                }
            }
            XCTAssertEqual(counts["overlap"], 14 * 14)
        }
    }

    func testACheckerboardTextureIsReproducedTexelForPixel() throws {
        let texture = RenderTestScenes.checkerTexture()
        let camera = RenderTestScenes.frontCamera(width: 64, height: 64, focal: 64)
        let image = try MeshRenderer(RenderTestScenes.texturedQuad(texture)).render(camera)
        XCTAssertEqual(RenderTestScenes.psnr(image, texture), .infinity, "an exact copy")
        XCTAssertTrue(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        let flipped = RenderTestScenes.flippedVertically(texture)
        XCTAssertLessThan(RenderTestScenes.psnr(image, flipped), 15, "the flipped texture must not match")
    }

    func testATiltedQuadIsInterpolatedPerspectiveCorrectly() throws {
        // A quad receding in depth: screen-space (affine) interpolation would put the texture's
        // middle column at the quad's projected middle; perspective-correct puts it nearer the far edge.
        var quad = RenderTestScenes.texturedQuad(RenderTestScenes.checkerTexture())
        quad.positions = [SIMD3(-1, -1, 2), SIMD3(1, -1, 6), SIMD3(1, 1, 6), SIMD3(-1, 1, 2)]
        let camera = RenderTestScenes.frontCamera(width: 200, height: 200, focal: 100)
        let image = try MeshRenderer(quad).render(camera)
        // Along the row through the principal point, u = 0.5 lies at world x = 0, z = 4: pixel 100.
        // Red is the gradient 255 * texel column / 63; texel column 31.5 gives about 127.
        let row = 100
        let red = (0..<200).map { Int(image[$0, row].first!) }
        let crossing = try XCTUnwrap(red.firstIndex { $0 >= 128 })
        XCTAssertEqual(crossing, 100, accuracy: 2, "u = 0.5 at x = 0 (affine would put it at pixel \(affineMiddle()))")
    }

    /// Where screen-space interpolation would put u = 0.5 for the tilted quad: the midpoint of
    /// its projected near (x = -1 at z = 2: pixel 50) and far (x = 1 at z = 6: 116.7) edges.
    private func affineMiddle() -> Int { Int((50 + 116.7) / 2) }

    func testGeometryBehindTheCameraIsClippedNotWrapped() throws {
        // A big floor crossing the camera plane: only the part in front of the camera shows, below
        // the horizon (y down), never mirrored above it.
        let floor = MeshModel(positions: [SIMD3(-10, 1, -5), SIMD3(10, 1, -5), SIMD3(10, 1, 20), SIMD3(-10, 1, 20)],
                              normals: [SIMD3<Float>](repeating: .zero, count: 4),
                              colors: [SIMD3<UInt8>](repeating: SIMD3(10, 200, 10), count: 4),
                              triangles: [SIMD3(0, 1, 2), SIMD3(0, 2, 3)])
        let camera = RenderTestScenes.frontCamera(width: 80, height: 60, focal: 40)
        let image = try MeshRenderer(floor).render(camera)
        for y in 0..<30 { for x in 0..<80 { XCTAssertEqual(image[x, y].last, 0, "above the horizon (\(x), \(y))") } }
        XCTAssertEqual(image[40, 59].last, 255, "the floor in front, at the bottom")
    }
}
