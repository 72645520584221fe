import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// Mesh repair (``TriangleMesh/clean(options:)``): degenerate and duplicated triangles, the
/// smallest triangles at a non-manifold edge, and small pieces go; the rest stays.
final class MeshCleanTests: XCTestCase {
    func testRepairKeepsTheSheetAndTheLargerFin() throws {
        // A 10 x 3 sheet of unit squares (60 triangles of area 0.5) in z = 0.
        var positions: [SIMD3<Float>] = []
        for j in 0...3 { for i in 0...10 { positions.append(SIMD3(Float(i), Float(j), 0)) } }
        func v(_ i: Int, _ j: Int) -> Int32 { Int32(j * 11 + i) }
        var triangles: [SIMD3<Int32>] = []
        for j in 0..<3 {
            for i in 0..<10 {
                triangles.append(SIMD3(v(i, j), v(i + 1, j), v(i + 1, j + 1)))
                triangles.append(SIMD3(v(i, j), v(i + 1, j + 1), v(i, j + 1)))
            }
        }
        // Two fins on the sheet's border edge (0,0)-(1,0): that edge then has three triangles,
        // and the smallest (the tiny fin, area 0.005) goes; the large fin (area 1) stays.
        positions.append(SIMD3(0.5, 0, 2))
        positions.append(SIMD3(0.5, 0, 0.01))
        let largeFin = Int32(positions.count - 2), tinyFin = Int32(positions.count - 1)
        triangles.append(SIMD3(v(1, 0), v(0, 0), largeFin))
        triangles.append(SIMD3(v(0, 0), v(1, 0), tinyFin))
        // A copy of a sheet triangle in another order, and a triangle with a repeated vertex.
        triangles.append(SIMD3(v(4, 1), v(3, 1), v(4, 2)))
        triangles.append(SIMD3(v(5, 1), v(5, 1), v(6, 2)))
        // A lone triangle far away: one triangle against 61 is below 2 % of the largest piece.
        positions += [SIMD3(50, 50, 0), SIMD3(51, 50, 0), SIMD3(50, 51, 0)]
        let n = Int32(positions.count)
        triangles.append(SIMD3(n - 3, n - 2, n - 1))

        let mesh = try TriangleMesh(positions: positions, triangles: triangles)
        let before = try mesh.topology()
        XCTAssertGreaterThanOrEqual(before.nonManifoldEdges, 1)
        try mesh.clean(options: CleanOptions())

        XCTAssertEqual(mesh.triangleCount, 61, "the sheet and the large fin")
        let topology = try mesh.topology()
        XCTAssertEqual(topology.nonManifoldEdges, 0)
        XCTAssertEqual(topology.components, 1)
        let model = mesh.meshModel()
        XCTAssertEqual(model.positions.count, 11 * 4 + 1, "unused vertices (tiny fin, lone triangle) dropped")
        XCTAssertTrue(model.positions.contains(SIMD3(0.5, 0, 2)), "the large fin stays")
        XCTAssertFalse(model.positions.contains(SIMD3(0.5, 0, 0.01)), "the tiny fin goes")
    }
}
