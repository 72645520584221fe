import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
import PhotogrammetryTestSupport

/// Poisson, trimming and cleaning on seeded synthetic clouds: a closed sphere comes back closed
/// and on its radius; an open half-sphere stays open (no bubble over the unseen half).
final class SurfaceReconstructionTests: XCTestCase {
    func testASphereCloudGivesAClosedSphereOnItsRadius() throws {
        let cloud = try SyntheticSurface.sphereCloud(count: 20_000, noise: 0.002)
        var options = SurfaceOptions()
        options.detail = .raw
        options.depth = 7
        let result = try SurfaceReconstruction(options: options).run(cloud: cloud)
        let model = result.mesh.meshModel()
        // Depth 7 on a cube of 2.2: cells of 0.017; a sphere of radius 1 has about
        // 2 x 4π / 0.017² ≈ 85k triangles at that resolution.
        XCTAssertEqual(result.depth, 7)
        XCTAssertEqual(result.cellSize, 2 * 1.1 / 128, accuracy: 0.002)
        XCTAssertGreaterThan(model.triangles.count, 30_000)
        XCTAssertLessThan(model.triangles.count, 200_000)
        let radii = model.positions.map { Double(($0 * $0).sum().squareRoot()) }
        XCTAssertEqual(radii.reduce(0, +) / Double(radii.count), 1, accuracy: 0.01, "mean radius")
        XCTAssertLessThan(radii.map { abs($0 - 1) }.max()!, 0.03, "every vertex within 0.03 of the sphere")
        let topology = try result.mesh.topology()
        XCTAssertEqual(topology.nonManifoldEdges, 0)
        XCTAssertEqual(topology.components, 1)
        XCTAssertLessThanOrEqual(topology.boundaryEdges, model.triangles.count / 200, "watertight, or nearly: \(topology)")
        // An evenly sampled surface loses (almost) nothing to the density rule.
        XCTAssertLessThan(result.trim.lowDensityVertices, model.positions.count / 50)
        // Outward normals and winding; colours from the nearest points (red above, blue below).
        for (p, n) in zip(model.positions, model.normals).prefix(2000) { XCTAssertGreaterThan((p * n).sum(), 0.9) }
        for (p, c) in zip(model.positions, model.colors) where abs(p.z) > 0.05 {
            XCTAssertEqual(p.z > 0 ? c : SIMD3(c.z, c.y, c.x), SIMD3(200, 30, 30))
        }
    }

    func testAnOpenHalfSphereIsNotClosedIntoABubble() throws {
        let cloud = try SyntheticSurface.sphereCloud(count: 15_000, minZ: 0, noise: 0.002)
        var options = SurfaceOptions()
        options.detail = .raw
        options.depth = 7
        options.room = true
        let result = try SurfaceReconstruction(options: options).run(cloud: cloud)
        let model = result.mesh.meshModel()
        XCTAssertGreaterThan(model.triangles.count, 10_000, "the half-sphere itself is kept")
        // Poisson carries the surface on past the rim, away from every point; trimming must cut
        // all of that away.
        let reference = try OrientedCloud(cloud)
        let distances = try reference.nearestDistances(SyntheticSurface.centroids(model))
        let limit = SurfaceOptions.roomMaxDistanceSpacings * max(result.medianSpacing, result.cellSize)
        XCTAssertLessThanOrEqual(distances.max()!, limit, "no face farther than the trim limit from the points")
        XCTAssertLessThan(distances.max()!, 0.06, "no face farther than 0.06 (radius 1) from the points")
        XCTAssertGreaterThan(model.positions.map(\.z).min()!, -0.06, "nothing of a closing bubble below the rim")
        let topology = try result.mesh.topology()
        XCTAssertFalse(topology.isWatertight)
        XCTAssertGreaterThan(topology.boundaryEdges, 100, "the rim stays open")
        // Poisson's surface beyond the rim was there (so the checks above can fail) and was cut.
        XCTAssertGreaterThan(result.poissonTriangles - model.triangles.count, 2_000)
        XCTAssertGreaterThan(result.trim.farTriangles, 1_000, "by distance")
    }

    func testObjectsAreCutToTheirRegion() throws {
        let cloud = try SyntheticSurface.sphereCloud(count: 10_000)
        var options = SurfaceOptions()
        options.detail = .raw
        options.depth = 6
        options.region = BoundingBox(min: SIMD3(-2, -2, -0.5), max: SIMD3(2, 2, 2))
        options.regionMargin = 0
        let model = try SurfaceReconstruction(options: options).run(cloud: cloud).mesh.meshModel()
        XCTAssertGreaterThanOrEqual(model.positions.map(\.z).min()!, -0.5)
        XCTAssertLessThan(model.positions.map(\.z).min()!, -0.45)
    }

    func testACloudWithoutNormalsIsRefusedAndProgressCanCancel() throws {
        let bare = try PointCloud(points: (0..<100).map { SIMD3(Float($0), 0, 0) })
        XCTAssertThrowsError(try SurfaceReconstruction().run(cloud: bare)) { XCTAssertEqual($0 as? SurfaceError, .noNormals) }
        let cloud = try SyntheticSurface.sphereCloud(count: 2_000)
        var options = SurfaceOptions()
        options.depth = 5
        var calls: [Int] = []
        XCTAssertThrowsError(try SurfaceReconstruction(options: options).run(cloud: cloud) { done, total in
            XCTAssertEqual(total, SurfaceReconstruction.steps.count)
            calls.append(done)
            return done < 2
        }) { XCTAssertEqual($0 as? SurfaceError, .cancelled) }
        XCTAssertEqual(calls, [1, 2])
    }

    func testDepthFollowsTheLevelAndTheCloudSize() {
        var options = SurfaceOptions()
        options.detail = .preview
        XCTAssertEqual(options.poissonDepth(pointCount: 1_000_000), 8)
        options.detail = .full
        XCTAssertEqual(options.poissonDepth(pointCount: 1_000_000), 10)
        XCTAssertEqual(options.poissonDepth(pointCount: 217_000), 9, "templeRing's dense cloud")
        XCTAssertEqual(options.poissonDepth(pointCount: 20_000), 8)
        XCTAssertEqual(options.poissonDepth(pointCount: 50), 5, "never below 5")
        options.depth = 6
        XCTAssertEqual(options.poissonDepth(pointCount: 1_000_000), 6)
        options.depth = 13
        XCTAssertThrowsError(try options.validate())
    }
}
