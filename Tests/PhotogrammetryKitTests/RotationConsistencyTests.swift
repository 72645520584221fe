import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The view graph's averaged rotations are the true ones although half-turn twins of a
/// symmetric texture vote too, the twins alone contradict them, and they follow the focal length.
final class RotationConsistencyTests: XCTestCase {
    /// A seeded ring of cameras around a box of points, undistorted.
    func ring(numImages: Int = 12) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.numImages = numImages
        options.numPoints = 300
        options.params = [800, 500, 400, 0]
        options.pixelNoise = 0.3
        options.seed = 7
        return SyntheticScene(options)
    }

    /// The fundamental matrix (row-major) of the relative pose `R`, `t` under intrinsics `K`.
    func fundamental(_ R: Matrix3, _ t: SIMD3<Double>, _ K: Matrix3) -> [Double] {
        let tx = Matrix3(rows: SIMD3(0, -t.z, t.y), SIMD3(t.z, 0, -t.x), SIMD3(-t.y, t.x, 0))
        let Kinverse = Matrix3(rows: SIMD3(1 / K.rows.0.x, 0, -K.rows.0.z / K.rows.0.x),
                               SIMD3(0, 1 / K.rows.1.y, -K.rows.1.z / K.rows.1.y), SIMD3(0, 0, 1))
        return (Kinverse.transposed * tx * R * Kinverse).rowMajor
    }

    /// A ring's view graph (every pair sharing 30 points, fundamental matrices from the true
    /// poses) in which the pairs `twins` are half-turn twins: image j's keypoints turned about
    /// its principal point, as SIFT matches a pattern to its turned copy.
    func twinGraph(_ twins: Set<SIMD2<Int>>) -> (graph: MatchGraph, keypoints: [[SIMD2<Double>]], K: Matrix3,
                                                 truth: [Matrix3], camera: Camera) {
        let scene = ring()
        let rec = scene.reconstruction
        let K = rec.cameras[CameraID(1)]!.calibrationMatrix
        let n = scene.options.numImages
        var keypoints = (0..<n).map { rec.images[ImageID($0 + 1)]!.points2D }
        // Keypoint of each image for each point.
        var keypointOf = [[Int: Int]](repeating: [:], count: n)
        for (id, point) in rec.points3D {
            for element in point.track { keypointOf[Int(element.imageID.rawValue) - 1][Int(id.rawValue)] = element.point2DIndex }
        }
        let halfTurn = Matrix3(rows: SIMD3(-1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, 1))
        var graph = MatchGraph(numImages: n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let shared = keypointOf[i].keys.filter { keypointOf[j][$0] != nil }.sorted()
                guard shared.count >= 30 else { continue }
                let poseI = rec.images[ImageID(i + 1)]!.camFromWorld!, poseJ = rec.images[ImageID(j + 1)]!.camFromWorld!
                var jFromI = poseJ * poseI.inverse
                var matches = shared.map { SIMD2(Int32(keypointOf[i][$0]!), Int32(keypointOf[j][$0]!)) }
                if twins.contains(SIMD2(i, j)) {
                    jFromI = Rigid3(rotation: halfTurn * jFromI.rotation, translation: halfTurn * jFromI.translation)
                    matches = matches.map { match in
                        let p = keypoints[j][Int(match.y)]
                        keypoints[j].append(SIMD2(2 * K.rows.0.z - p.x, 2 * K.rows.1.z - p.y))
                        return SIMD2(match.x, Int32(keypoints[j].count - 1))
                    }
                }
                graph.edges.append(MatchGraph.Edge(first: i, second: j, matches: matches, configuration: .calibrated,
                                                   fundamental: fundamental(jFromI.rotation, jFromI.translation, K)))
            }
        }
        let truth = (0..<n).map { rec.images[ImageID($0 + 1)]!.camFromWorld!.rotation }
        return (graph, keypoints, K, truth, rec.cameras[CameraID(1)]!)
    }

    func testVotingPartsAreReportedSoFramesAreNotComparedAcrossThem() throws {
        // Pairs between the ring's two halves do not vote (too few matches): two parts, each in a
        // frame of its own, whose rotations the mapper's check must not compare.
        var (graph, keypoints, K, truth, _) = twinGraph([])
        let half = graph.numImages / 2
        var options = RotationConsistency()
        options.minVoteMatches = 30
        graph.edges = graph.edges.map { edge in
            var edge = edge
            if (edge.first < half) != (edge.second < half) { edge.matches = Array(edge.matches.prefix(29)) }
            return edge
        }
        let (rotations, parts) = options.averagedRotationsAndParts(graph, calibration: Array(repeating: K, count: graph.numImages),
                                                                   keypoints: keypoints, threads: 2)
        XCTAssertEqual(Set(parts.values).count, 2)
        for i in 0..<graph.numImages {
            XCTAssertEqual(parts[i], parts[i < half ? 0 : half], "image \(i)")
            // Within a part, relative rotations are the true ones.
            let j = i < half ? 0 : half
            let relative = rotations[i]! * rotations[j]!.transposed, trueRelative = truth[i] * truth[j].transposed
            XCTAssertLessThan(Rotation.angleDegrees(between: relative, and: trueRelative), 1, "image \(i)")
        }
    }

    func testHalfTurnTwinsContradictTheAveragedRotationsAndTruePairsDoNot() throws {
        let twins: Set<SIMD2<Int>> = [SIMD2(0, 5), SIMD2(2, 8), SIMD2(3, 9)]
        let (graph, keypoints, K, truth, _) = twinGraph(twins)
        let n = graph.numImages
        XCTAssertGreaterThan(graph.edges.count, 20)
        let options = RotationConsistency()
        let calibration = Array(repeating: K, count: n)
        let votes = options.votes(graph, calibration: calibration, keypoints: keypoints, threads: 2)
        XCTAssertEqual(votes.count, graph.edges.count)
        let rotations = options.averagedRotations(graph, calibration: calibration, keypoints: keypoints, threads: 2)
        // Each pair's own rotation against the one the averaged rotations imply: the twins miss
        // by their half turn, every true pair stays within the check's bound.
        var contradicted: Set<SIMD2<Int>> = []
        for vote in votes {
            let edge = graph.edges[vote.edge]
            let implied = rotations[edge.second]! * rotations[edge.first]!.transposed
            let residual = Rotation.angleDegrees(between: vote.rotation, and: implied)
            if residual > options.maxResidualDeg {
                contradicted.insert(SIMD2(edge.first, edge.second))
                XCTAssertGreaterThan(residual, 150)
            }
        }
        XCTAssertEqual(contradicted, twins)
        // The averaged rotations are the true ones, up to one rotation of the whole.
        let gauge = truth[0].transposed * rotations[0]!
        for i in 0..<n {
            XCTAssertLessThan(Rotation.angleDegrees(between: rotations[i]!, and: truth[i] * gauge), 1.0)
        }
    }

    func testRotationCheckAveragesAgainWhenTheFocalLengthMoves() {
        let (graph, keypoints, _, truth, camera) = twinGraph([SIMD2(0, 5)])
        var options = RotationConsistency()
        options.minVoteMatches = 30
        let check = RotationCheck(options: options, graph: graph, keypoints: keypoints,
                                  cameraOfImage: Array(repeating: camera.id, count: graph.numImages), threads: 1)
        func angleToTruth(_ rotations: [Int: Matrix3]) -> Double {
            let gauge = truth[0].transposed * rotations[0]!
            return (0..<graph.numImages).map { Rotation.angleDegrees(between: rotations[$0]!, and: truth[$0] * gauge) }.max()!
        }
        var wrong = camera
        wrong.setFocalLength(2 * camera.meanFocalLength)
        let underWrong = check.rotations(cameras: [camera.id: wrong])
        XCTAssertGreaterThan(angleToTruth(underWrong), 2, "a focal length twice too long turns the rotations")
        // Within 10 % the cached rotations stand; beyond, they are averaged again.
        var near = wrong
        near.setFocalLength(1.05 * wrong.meanFocalLength)
        XCTAssertEqual(angleToTruth(check.rotations(cameras: [camera.id: near])),
                       angleToTruth(underWrong))
        XCTAssertLessThan(angleToTruth(check.rotations(cameras: [camera.id: camera])), 1)
    }
}
