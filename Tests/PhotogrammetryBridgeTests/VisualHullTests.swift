import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// The masks' visual hull: a masked view that sees a triangle on background cuts it; the object
/// itself, and whatever no view sees, stay.
final class VisualHullTests: XCTestCase {
    /// Four views on a ring of radius 5 around the origin, 200 x 200 px, each masked to a disc
    /// of the projected radius `radius` around the origin (the silhouette of a ball).
    func makeHull(radius: Double) throws -> VisualHull {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("hull-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let (size, focal, distance) = (200, 200.0, 5.0)
        let views = [SIMD3<Double>(0, 0, distance), SIMD3(distance, 0, 0), SIMD3(0, 0, -distance), SIMD3(-distance, 0, 0)]
            .map { MVSView(width: size, height: size, fx: focal, fy: focal, cx: 100, cy: 100,
                           camFromWorld: MVSTestScene.lookAt(from: $0, to: .zero)) }
        // The ball's silhouette: its angular radius, in pixels.
        let pixels = focal * tan(asin(radius / distance))
        var urls: [URL] = []
        for k in views.indices {
            var mask = [UInt8](repeating: 0, count: size * size)
            for y in 0..<size {
                for x in 0..<size {
                    let (dx, dy) = (Double(x) + 0.5 - 100, Double(y) + 0.5 - 100)
                    if dx * dx + dy * dy <= pixels * pixels { mask[y * size + x] = 255 }
                }
            }
            let url = folder.appendingPathComponent("mask\(k).png")
            try TestPNG.writeGrey(mask, width: size, height: size, to: url)
            urls.append(url)
        }
        return VisualHull(views: views, maskURLs: urls)
    }

    func testPointsOnBackgroundAreOutsideAndTheObjectAndUnseenSpaceStay() throws {
        let hull = try makeHull(radius: 1)
        let points: [SIMD3<Float>] = [
            .zero,                 // the ball's centre
            SIMD3(0.95, 0, 0),     // just inside its surface
            SIMD3(0, 0.97, 0),     // its top, inside the disc in every view
            SIMD3(2, 0, 0),        // beside it: the front view sees background there
            SIMD3(0.7, 0.7, 0.7),  // inside the bounding cube, outside the ball: background in every view
            SIMD3(0, 40, 0),       // far above: outside every view's frame, so nothing disproves it
        ]
        let outside = try hull.outside(points: points.flatMap { [$0.x, $0.y, $0.z] }, threads: 2)
        XCTAssertEqual(outside, [false, false, false, true, true, false])
    }

    func testMasksAreGrownBeforeTheyCut() throws {
        // Seen from 5, the ball's silhouette has a radius of 40.8 px and a point at 1.1 lies at
        // 44 px, 3.2 px beyond it: the default growth (1 % of 200 px: 2 px) cuts it, 2 % keeps it.
        var hull = try makeHull(radius: 1)
        let point: [Float] = [0, 1.1, 0]
        XCTAssertEqual(try hull.outside(points: point, threads: 1), [true])
        hull.dilationShare = 0.02
        XCTAssertEqual(try hull.outside(points: point, threads: 1), [false])
    }

    func testCutRemovesTheTrianglesOnBackgroundOnly() throws {
        let hull = try makeHull(radius: 1)
        // Two small triangles inside the ball, one beside it.
        let mesh = try TriangleMesh(positions: [SIMD3(-0.2, 0, 0), SIMD3(0.2, 0, 0), SIMD3(0, 0.2, 0), SIMD3(0, -0.2, 0),
                                                SIMD3(2, 0, 0), SIMD3(2.2, 0, 0), SIMD3(2, 0.2, 0)],
                                    triangles: [SIMD3(0, 1, 2), SIMD3(0, 3, 1), SIMD3(4, 5, 6)])
        XCTAssertEqual(try mesh.cut(to: hull, threads: 1), 1)
        XCTAssertEqual(mesh.triangleCount, 2)
        XCTAssertEqual(mesh.vertexCount, 4, "the cut triangle's vertices go with it")
    }
}
