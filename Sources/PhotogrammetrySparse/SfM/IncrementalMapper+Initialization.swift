import Foundation
import PhotogrammetryCore

extension IncrementalMapper {
    /// A candidate initial pair with the quality its two-view reconstruction reached.
    struct InitialPairCandidate {
        package var edge: Int
        package var cam2FromCam1: Rigid3
        package var numPoints: Int
        var medianAngleDeg: Double
    }

    /// Picks the initial pair, registers it and triangulates its tracks.
    ///
    /// Candidates are the best-connected pairs with general motion. Each is reconstructed from its
    /// essential matrix; the first angle threshold that some candidate meets with enough points
    /// decides, and among those the candidate with most points wins (COLMAP relaxes its angle
    /// the same way when a capture has little parallax).
    func initialize() throws -> Bool {
        let order = graph.edges.indices
            .filter { graph.edges[$0].configuration.hasGeneralMotion
                && isSeed(graph.edges[$0].first) && isSeed(graph.edges[$0].second)
                && !isNearDuplicate[graph.edges[$0].first] && !isNearDuplicate[graph.edges[$0].second] }
            .sorted { (graph.edges[$0].matches.count, -$0) > (graph.edges[$1].matches.count, -$1) }
        var candidates: [InitialPairCandidate] = []
        for e in order.prefix(options.initMaxCandidatePairs) {
            if let candidate = try evaluateInitialPair(edge: e) { candidates.append(candidate) }
        }
        trace("initial pair: \(order.count) general-motion edges, candidates (points, angle): "
              + candidates.prefix(8).map { "\($0.numPoints)/\(Int($0.medianAngleDeg))" }.joined(separator: " "))
        // Weak texture leaves every pair short of the points a good start has: relax the count
        // too, down to what PnP needs to register a third image from them.
        var pointLadder = [options.initMinNumPoints]
        while let last = pointLadder.last, last / 2 >= options.absolutePoseMinNumInliers { pointLadder.append(last / 2) }
        if let last = pointLadder.last, last > options.absolutePoseMinNumInliers {
            pointLadder.append(options.absolutePoseMinNumInliers)
        }
        for minPoints in pointLadder {
            if try initialize(from: candidates, minNumPoints: minPoints) {
                if minPoints < options.initMinNumPoints { trace("initial pair with only \(minPoints)+ points") }
                return true
            }
        }
        return false
    }

    /// Starts from the best candidate with at least `minNumPoints` points, at the strictest
    /// angle some candidate meets.
    func initialize(from candidates: [InitialPairCandidate], minNumPoints: Int) throws -> Bool {
        for minAngle in options.initMinTriangulationAnglesDeg {
            let good = candidates.filter {
                $0.numPoints >= minNumPoints && $0.medianAngleDeg >= minAngle
            }
            guard let best = good.max(by: { ($0.numPoints, -$0.edge) < ($1.numPoints, -$1.edge) }) else { continue }
            let edge = graph.edges[best.edge]
            reconstruction.images[ImageID(edge.first + 1)]!.camFromWorld = .identity
            reconstruction.images[ImageID(edge.second + 1)]!.camFromWorld = best.cam2FromCam1
            registrationOrder = [edge.first, edge.second]
            trace("init pair \(edge.first) \(edge.second) points \(best.numPoints) angle \(best.medianAngleDeg) allowed \(allowedImages.map { $0.filter { $0 }.count } ?? -1)")
            triangulateTracks(seenBy: edge.second)
            guard reconstruction.points3D.count >= minNumPoints / 2 else {
                resetToEmpty()
                continue
            }
            try adjustGlobally()
            if reconstruction.points3D.count >= minNumPoints / 2 { return true }
            resetToEmpty()
        }
        return false
    }

    /// Estimates the relative pose of one pair and measures its two-view triangulation.
    func evaluateInitialPair(edge e: Int) throws -> InitialPairCandidate? {
        let edge = graph.edges[e]
        let camera1 = camera(ofImage: edge.first), camera2 = camera(ofImage: edge.second)
        let points1 = edge.matches.map { camera1.normalized(keypoint(edge.first, Int($0.x))) }
        let points2 = edge.matches.map { camera2.normalized(keypoint(edge.second, Int($0.y))) }
        let threshold = options.absolutePoseMaxErrorPx / (0.5 * (camera1.meanFocalLength + camera2.meanFocalLength))
        guard let (pose, inliers) = try? estimateRelativePose(points1, points2, maxError: threshold) else {
            return nil
        }
        let poses = [Rigid3.identity, pose]
        var observations: [[(pose: Int, point: SIMD2<Double>)]] = []
        for (m, inlier) in inliers.enumerated() where inlier {
            observations.append([(0, points1[m]), (1, points2[m])])
        }
        let results = triangulateBatch(observations, poses: poses, maxError: threshold)
        let center2 = pose.centerInWorld
        var angles: [Double] = []
        for result in results {
            guard let x = result.point else { continue }
            angles.append(rayAngleDegrees(x, .zero, center2))
        }
        guard !angles.isEmpty else { return nil }
        angles.sort()
        return InitialPairCandidate(edge: e, cam2FromCam1: pose, numPoints: angles.count,
                                    medianAngleDeg: angles[angles.count / 2])
    }

    /// Forgets a failed initialisation.
    func resetToEmpty() {
        for id in Array(reconstruction.points3D.keys) { deletePoint(id) }
        for i in registrationOrder { reconstruction.images[ImageID(i + 1)]!.camFromWorld = nil }
        registrationOrder = []
    }
}

/// The angle in degrees at `point` between the rays to two camera centres.
func rayAngleDegrees(_ point: SIMD3<Double>, _ center1: SIMD3<Double>, _ center2: SIMD3<Double>) -> Double {
    let a = normalize(center1 - point), b = normalize(center2 - point)
    return acos(max(-1, min(1, dot(a, b)))) * 180 / .pi
}
