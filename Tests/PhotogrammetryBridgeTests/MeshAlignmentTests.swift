import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// ``TriangleMesh/align(_:options:)``: points moved off a known surface by a known similarity,
/// with points that belong to no surface mixed in, are brought back.
final class MeshAlignmentTests: XCTestCase {
    /// A lumpy closed surface (a sphere of radius 1 whose radius varies by a fifth), so that no
    /// turn maps it onto itself and ICP has one answer.
    static func lumpySphere(rings: Int = 40, segments: Int = 80) -> (positions: [SIMD3<Float>], triangles: [SIMD3<Int32>]) {
        var positions: [SIMD3<Float>] = [SIMD3(0, 0, 1), SIMD3(0, 0, -1)]
        for r in 1..<rings {
            let theta = Double.pi * Double(r) / Double(rings)
            for s in 0..<segments {
                let phi = 2 * Double.pi * Double(s) / Double(segments)
                let radius = 1 + 0.2 * sin(3 * theta) * cos(2 * phi) + 0.1 * cos(phi)
                positions.append(SIMD3(Float(radius * sin(theta) * cos(phi)), Float(radius * sin(theta) * sin(phi)),
                                       Float(radius * cos(theta))))
            }
        }
        func vertex(_ r: Int, _ s: Int) -> Int32 { Int32(2 + (r - 1) * segments + (s % segments)) }
        var triangles: [SIMD3<Int32>] = []
        for s in 0..<segments {
            triangles.append(SIMD3(0, vertex(1, s), vertex(1, s + 1)))
            triangles.append(SIMD3(1, vertex(rings - 1, s + 1), vertex(rings - 1, s)))
            for r in 1..<(rings - 1) {
                triangles.append(SIMD3(vertex(r, s), vertex(r + 1, s), vertex(r + 1, s + 1)))
                triangles.append(SIMD3(vertex(r, s), vertex(r + 1, s + 1), vertex(r, s + 1)))
            }
        }
        return (positions, triangles)
    }

    func testSimilarityIsRecoveredDespitePointsOffTheSurface() throws {
        let (positions, triangles) = Self.lumpySphere()
        let mesh = try TriangleMesh(positions: positions, triangles: triangles)
        // The points' frame: 4 % larger, turned 3° about a slanted axis, shifted by 3 % of the size.
        let axis = SIMD3<Double>(1, 2, 2) / 3
        let truth = Similarity3(scale: 1 / 1.04, rotation: Rotation.matrix(angleAxis: axis * (3 * Double.pi / 180)),
                                translation: SIMD3(0.03, -0.02, 0.04))
        let back = truth.inverse
        var random = SeededGenerator(seed: 11)
        var points = positions.indices.filter { $0 % 3 == 0 }.map { back.apply(SIMD3<Double>(positions[$0])) }
        // A fifth more that lie on nothing: a ground plane below the object, as a capture's sparse
        // points of the floor.
        for _ in 0..<(points.count / 5) {
            let x = Double(random.next(below: 1000)) / 250 - 2, y = Double(random.next(below: 1000)) / 250 - 2
            points.append(back.apply(SIMD3(x, y, -1.6)))
        }
        let fit = try mesh.align(points)
        XCTAssertEqual(fit.similarity.scale, truth.scale, accuracy: 0.003 * truth.scale)
        XCTAssertLessThan(Rotation.angleDegrees(between: fit.similarity.rotation, and: truth.rotation), 0.3)
        XCTAssertLessThan(length(fit.similarity.translation - truth.translation), 0.005)
        XCTAssertGreaterThan(fit.fitness, 0.8, "the points of the surface fit, the plane's do not")
        XCTAssertLessThan(fit.fitness, 0.9)
        XCTAssertThrowsError(try mesh.align([SIMD3(0, 0, 0), SIMD3(1, 0, 0)]), "two points fix nothing")
    }
}
