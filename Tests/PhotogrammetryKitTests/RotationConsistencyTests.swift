import XCTest
@testable import PhotogrammetryKit

/// Pairs whose relative rotation the rest of the view graph contradicts (half-turn twins of a
/// symmetric texture) are dropped; the true pairs all stay, and a planar pair's homography
/// allows its true rotation.
final class RotationConsistencyTests: XCTestCase {
    /// A seeded ring of cameras around a box of points, undistorted.
    func ring(numImages: Int = 12, flatten: Bool = false) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.numImages = numImages
        options.numPoints = 300
        options.params = [800, 500, 400, 0]
        options.pixelNoise = 0.3
        if flatten { options.pointBoxHalfExtent = SIMD3(2, 2, 0) }
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

    func testHalfTurnTwinsAreDroppedAndTruePairsKept() throws {
        let twins: Set<SIMD2<Int>> = [SIMD2(0, 5), SIMD2(2, 8), SIMD2(3, 9)]
        let (graph, keypoints, K, truth, _) = twinGraph(twins)
        let n = graph.numImages
        XCTAssertGreaterThan(graph.edges.count, 20)
        let result = RotationConsistency().filter(graph, calibration: Array(repeating: K, count: n),
                                                  keypoints: keypoints, threads: 2)
        XCTAssertEqual(result.judged, graph.edges.count)
        XCTAssertEqual(Set(result.dropped.map { SIMD2($0.first, $0.second) }), twins)
        for pair in result.dropped { XCTAssertGreaterThan(pair.residualDeg, 150) }
        XCTAssertEqual(result.graph.edges.count, graph.edges.count - twins.count)
        // The averaged rotations are the true ones, up to one rotation of the whole.
        let gauge = truth[0].transposed * result.rotations[0]!
        for i in 0..<n {
            XCTAssertLessThan(Rotation.angleDegrees(between: result.rotations[i]!, and: truth[i] * gauge), 1.0)
        }
    }

    func testRotationCheckAveragesAgainWhenTheFocalLengthMoves() {
        let (graph, keypoints, _, truth, camera) = twinGraph([SIMD2(0, 5)])
        var options = RotationConsistency()
        options.minVoteMatches = 30
        let check = RotationCheck(options: options, graph: graph, keypoints: keypoints, threads: 1)
        let cameraOfImage = Array(repeating: camera.id, count: graph.numImages)
        func angleToTruth(_ rotations: [Int: Matrix3]) -> Double {
            let gauge = truth[0].transposed * rotations[0]!
            return (0..<graph.numImages).map { Rotation.angleDegrees(between: rotations[$0]!, and: truth[$0] * gauge) }.max()!
        }
        var wrong = camera
        wrong.setFocalLength(2 * camera.meanFocalLength)
        let underWrong = check.rotations(cameras: [camera.id: wrong], cameraOfImage: cameraOfImage)
        XCTAssertGreaterThan(angleToTruth(underWrong), 2, "a focal length twice too long turns the rotations")
        // Within 10 % the cached rotations stand; beyond, they are averaged again.
        var near = wrong
        near.setFocalLength(1.05 * wrong.meanFocalLength)
        XCTAssertEqual(angleToTruth(check.rotations(cameras: [camera.id: near], cameraOfImage: cameraOfImage)),
                       angleToTruth(underWrong))
        XCTAssertLessThan(angleToTruth(check.rotations(cameras: [camera.id: camera], cameraOfImage: cameraOfImage)), 1)
    }

    func testOffTurnsTheFilterOff() {
        let graph = MatchGraph(numImages: 2, edges: [MatchGraph.Edge(first: 0, second: 1, matches: [], configuration: .calibrated)])
        var options = RotationConsistency()
        options.maxResidualDeg = 0
        let result = options.filter(graph, calibration: [], keypoints: [], threads: 1)
        XCTAssertEqual(result.graph.edges.count, 1)
        XCTAssertTrue(result.dropped.isEmpty)
    }

    func testPlanarPairAllowsItsTrueRotation() throws {
        let scene = ring(numImages: 8, flatten: true)
        let rec = scene.reconstruction
        let K = rec.cameras[CameraID(1)]!.calibrationMatrix
        let (i, j) = (0, 1)
        var points1: [SIMD2<Double>] = [], points2: [SIMD2<Double>] = []
        for point in rec.points3D.values {
            guard let a = point.track.first(where: { $0.imageID == ImageID(i + 1) }),
                  let b = point.track.first(where: { $0.imageID == ImageID(j + 1) }) else { continue }
            points1.append(rec.images[ImageID(i + 1)]!.points2D[a.point2DIndex])
            points2.append(rec.images[ImageID(j + 1)]!.points2D[b.point2DIndex])
        }
        XCTAssertGreaterThan(points1.count, 50)
        let truth = (rec.images[ImageID(j + 1)]!.camFromWorld! * rec.images[ImageID(i + 1)]!.camFromWorld!.inverse).rotation
        let candidates = try TwoViewEstimator.planarRotations(points1: points1, points2: points2, K1: K.rowMajor,
                                                              K2: K.rowMajor, maxErrorPx: 4)
        XCTAssertFalse(candidates.isEmpty)
        XCTAssertLessThan(candidates.map { Rotation.angleDegrees(between: $0, and: truth) }.min()!, 1.0)
    }
}
