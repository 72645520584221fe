import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// Every detail level's triangle cap holds on a mesh larger than the largest cap, and the
/// decimated surface stays on the original.
final class MeshDecimationTests: XCTestCase {
    func testEveryLevelStaysBelowItsCap() throws {
        let (positions, triangles) = SyntheticSurface.icosphere(levels: 7)  // 327,680 triangles
        XCTAssertGreaterThan(triangles.count, 250_000)
        let colors = positions.map { $0.x > 0 ? SIMD3<UInt8>(255, 0, 0) : SIMD3<UInt8>(0, 255, 0) }
        let mesh = try TriangleMesh(positions: positions, colors: colors, triangles: triangles)
        for level in DetailLevel.allCases {
            guard let cap = level.maxTriangles else {
                XCTAssertEqual(level, .raw)
                continue
            }
            let (simplified, _) = try mesh.simplified(below: cap)
            XCTAssertLessThan(simplified.triangleCount, cap, "\(level)")
            XCTAssertGreaterThan(simplified.triangleCount, cap * 9 / 10, "\(level): close to the cap, not collapsed")
            let model = simplified.meshModel()
            XCTAssertEqual(model.positions.count, simplified.vertexCount)
            for p in model.positions { XCTAssertEqual(Double((p * p).sum().squareRoot()), 1, accuracy: 1e-4) }
            for (p, c) in zip(model.positions, model.colors) where abs(p.x) > 1e-3 {
                XCTAssertEqual(c, p.x > 0 ? SIMD3(255, 0, 0) : SIMD3(0, 255, 0), "colours follow their vertices")
            }
            XCTAssertEqual(try simplified.topology().boundaryEdges, 0, "\(level): still closed")
        }
    }

    func testAMeshBelowTheCapIsKeptAndTinyCapsAreRefused() throws {
        let (positions, triangles) = SyntheticSurface.icosphere(levels: 2)
        let mesh = try TriangleMesh(positions: positions, triangles: triangles)
        XCTAssertEqual(try mesh.simplified(below: 25_000).mesh.triangleCount, 320)
        XCTAssertThrowsError(try mesh.simplified(below: 3))
        // Clustering takes over when edge collapse may not deviate enough to reach the cap.
        var strict = SimplifyOptions()
        strict.targetError = 1e-6
        let (tiny, usedClustering) = try mesh.simplified(below: 40, options: strict)
        XCTAssertTrue(usedClustering)
        XCTAssertLessThan(tiny.triangleCount, 40)
        XCTAssertGreaterThan(tiny.triangleCount, 0)
    }
}
