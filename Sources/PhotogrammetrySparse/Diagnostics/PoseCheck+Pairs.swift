import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension PoseCheck {
    /// Verified matches a pair needs for its measured relative pose to judge the model by: 100,
    /// as for a vote in rotation averaging (``RotationConsistency/minVoteMatches``). Below it a
    /// pair's rotation is itself uncertain: on turntable-temple, where the model is right, the
    /// fundamental matrices of pairs of 30-50 matches miss it by 5° (median) and up to 33°, of
    /// 100-200 by 1.3° and at most 4°.
    public static var minPairMatches: Int { RotationConsistency().minVoteMatches }

    /// Largest median angle, degrees, between an image's rotations to its neighbours in the model
    /// and the pairs' two-view rotations: 10. An essential matrix from 100 matches or more under
    /// the model's cameras gives a pair's rotation within a few degrees (``minPairMatches``; the
    /// scatter on every good capture we have, docs/algorithms/sparse.md#pose-check), and the
    /// median over its pairs is steadier still; a pose registered through a wrong match (a twin, the backdrop instead of the object,
    /// another object) misses by tens of degrees.
    public static let maxRotationResidualDeg = 10.0

    /// Measured pairs an image needs for its rotations to be judged: 2, and it fails only when
    /// most of them disagree (the lower median). One pair's rotation from its fundamental matrix
    /// can be off even from 100 matches or more: on lowtex-turntable, whose model is right
    /// (AUC@5 97), pairs two frames apart with 100-130 matches on the textureless object miss by
    /// up to 26°, while the pairs of consecutive frames (250-350 matches) miss by 0.1-3°.
    public static let minPairsPerImage = 2

    /// Frames apart in capture order from which a matched pair is a loop closure: a quarter of
    /// the frames, at least 5. Pairs that close; the model's drift and wrong joins show there.
    static func loopGap(frames: Int) -> Int { max(5, frames / 4) }

    /// Largest angle, degrees, between a loop pair's measured relative rotation and the model's:
    /// ``maxRotationResidualDeg``, as for any pair (a single pair, but one with enough matches
    /// to be measured as well).
    public static var maxLoopResidualDeg: Double { maxRotationResidualDeg }

    /// Share of the loop pairs allowed to disagree: 0.1. A single pair across the sequence can be
    /// a repeated pattern's twin (its matches, not the model, are wrong); when more disagree the
    /// model does not close.
    public static let maxLoopDisagreeingShare = 0.1

    /// Each verified pair's relative pose, estimated afresh from its matches under the model's
    /// cameras (an essential matrix, RANSAC), and the rotation its fundamental matrix from
    /// matching gives under the same cameras: pairs whose images are both registered, with
    /// general motion, that keep ``minPairMatches`` inliers of the essential matrix.
    ///
    /// Each measurement alone misleads on some good capture: the fundamental matrix of a
    /// turntable pair with few object matches can hold the background's standstill
    /// (lowtex-turntable: pairs two frames apart missing a right model by 24-26°), and the
    /// essential matrix of a small object's pair can come out several degrees off where the
    /// fundamental matrix does not (synthetic-turntable: up to 9.6° as an image's median). A
    /// pair contradicts the model only when neither agrees with it.
    /// - Parameter imageIDs: the model's image of each graph index (nil: not in the model).
    public static func measuredPairs(_ graph: MatchGraph, model: Reconstruction, imageIDs: [ImageID?],
                                     threads: Int) -> [MeasuredPair] {
        let result = ResultSlots<MeasuredPair>(count: graph.edges.count)
        parallelFor(graph.edges.count, threads: threads) { e in
            let edge = graph.edges[e]
            guard edge.configuration.hasGeneralMotion, edge.matches.count >= minPairMatches,
                  edge.first < imageIDs.count, edge.second < imageIDs.count,
                  let id1 = imageIDs[edge.first], let id2 = imageIDs[edge.second],
                  let image1 = model.images[id1], let image2 = model.images[id2],
                  image1.isRegistered, image2.isRegistered,
                  let camera1 = model.cameras[image1.cameraID], let camera2 = model.cameras[image2.cameraID] else { return }
            let matches = edge.matches.filter { Int($0.x) < image1.points2D.count && Int($0.y) < image2.points2D.count }
            guard matches.count >= minPairMatches, let geometry = try? TwoViewEstimator.estimate(
                    points1: matches.map { image1.points2D[Int($0.x)] }, points2: matches.map { image2.points2D[Int($0.y)] },
                    K1: camera1.calibrationMatrix.rowMajor, K2: camera2.calibrationMatrix.rowMajor),
                  geometry.configuration == .calibrated, geometry.numEInliers >= minPairMatches,
                  length(geometry.translation) > 0 else { return }
            // The rotation the pair's fundamental matrix gives under the same cameras, sampled
            // as RotationConsistency samples it.
            let stride = (matches.count + RotationConsistency.maxPointsPerPair - 1) / RotationConsistency.maxPointsPerPair
            let sample = Swift.stride(from: 0, to: matches.count, by: stride).map { matches[$0] }
            var alternative: Matrix3?
            if edge.fundamental.count == 9, let pose = try? TwoViewEstimator.relativePose(
                fundamental: edge.fundamental, K1: camera1.calibrationMatrix.rowMajor, K2: camera2.calibrationMatrix.rowMajor,
                points1: sample.map { image1.points2D[Int($0.x)] }, points2: sample.map { image2.points2D[Int($0.y)] }),
                2 * pose.inFront >= sample.count {
                alternative = pose.rotation
            }
            result[e] = MeasuredPair(first: id1, second: id2, secondFromFirst: Matrix3(rowMajor: geometry.rotation),
                                     direction: normalize(geometry.translation), matches: geometry.numEInliers,
                                     alternative: alternative)
        }
        return (0..<graph.edges.count).compactMap { result[$0] }
    }

    /// The angle, degrees, between `pair`'s measured rotation and the model's.
    static func rotationResidual(_ pair: MeasuredPair, _ model: Reconstruction) -> Double? {
        guard let a = model.images[pair.first]?.camFromWorld, let b = model.images[pair.second]?.camFromWorld else { return nil }
        let modelRotation = b.rotation * a.rotation.transposed
        let residual = Rotation.angleDegrees(between: modelRotation, and: pair.secondFromFirst)
        return pair.alternative.map { min(residual, Rotation.angleDegrees(between: modelRotation, and: $0)) } ?? residual
    }

    /// Rotation agreement of every image with its pairs, and loop closures.
    static func pairChecks(_ model: Reconstruction, _ input: Input) -> [Outcome] {
        var residuals: [String: [Double]] = [:]
        var loops: [(names: (String, String), residual: Double)] = []
        let index = Dictionary(input.order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let gap = loopGap(frames: input.order.count)
        for pair in input.pairs {
            guard let residual = rotationResidual(pair, model), let a = model.images[pair.first]?.name,
                  let b = model.images[pair.second]?.name else { continue }
            residuals[a, default: []].append(residual)
            residuals[b, default: []].append(residual)
            if input.ordered, let i = index[a], let j = index[b], abs(i - j) >= gap {
                loops.append(((a, b), residual))
            }
            trace(String(format: "pose check: pair %@ %@ rotation residual %.2f° (%d matches)", a, b, residual, pair.matches))
        }
        var agreement = Outcome(check: .init(name: "rotation_agreement", passed: true, threshold: maxRotationResidualDeg,
                                             unit: "deg", evidence: ""),
                                fix: "Some frames' poses contradict their own matches (a repeated pattern, something that "
                                    + "moved, or the backdrop taken for the subject): mask what is not the subject "
                                    + "(--mask, or a rectangle), or retake those frames.")
        var worst: (median: Double, name: String)?
        var failing: [String] = []
        var unjudged = 0
        for (name, values) in residuals.sorted(by: { $0.key < $1.key }) {
            guard values.count >= minPairsPerImage else {
                unjudged += 1
                continue
            }
            let median = values.sorted()[(values.count - 1) / 2]
            if worst == nil || median > worst!.median { worst = (median, name) }
            agreement.scores[name] = (errorScore(median, threshold: maxRotationResidualDeg),
                                      String(format: "rotations miss its pairs' by %.1f° (median of %d; allowed %.0f°)",
                                             median, values.count, maxRotationResidualDeg))
            if median > maxRotationResidualDeg { failing.append(name) }
        }
        agreement.check.applies = worst != nil
        agreement.check.figure = worst.map { ($0.median * 10).rounded() / 10 }
        agreement.check.failingFrames = failing
        agreement.check.passed = failing.isEmpty
        let aside = unjudged == 0 ? "" : "; \(unjudged) with a single measured pair not judged"
        agreement.check.evidence = (worst == nil ? "no frame with \(minPairsPerImage) pairs of \(minPairMatches) matches to measure "
                + "its rotations by"
            : failing.isEmpty
            ? String(format: "every frame's rotations agree with its pairs' two-view rotations within %.1f° (median; allowed %.0f°)",
                     worst!.median, maxRotationResidualDeg)
            : String(format: "%@ %@ with %@ own matches: %@ pairs' two-view rotations miss the model's by %.0f° "
                     + "(median; allowed %.0f°)", CaptureAdvice.frames(failing), failing.count == 1 ? "disagrees" : "disagree",
                     failing.count == 1 ? "its" : "their",
                     failing.count == 1 ? "its" : "their", worst!.median, maxRotationResidualDeg)) + aside
        // Loop closures.
        var closure = Outcome(check: .init(name: "loop_closure", passed: true, threshold: maxLoopDisagreeingShare,
                                           unit: "share of loop pairs", evidence: ""),
                              fix: "Frames matched across the sequence disagree with the model: it drifted, or joined "
                                + "two parts wrongly. Mask what is not the subject, or add photos that bridge the parts.")
        let disagreeing = loops.filter { $0.residual > maxLoopResidualDeg }
        let share = loops.isEmpty ? 0 : Double(disagreeing.count) / Double(loops.count)
        for loop in disagreeing {
            for name in [loop.names.0, loop.names.1] {
                let score = errorScore(loop.residual, threshold: maxLoopResidualDeg)
                if (closure.scores[name]?.score ?? 1) > score {
                    closure.scores[name] = (score, String(format: "its loop pair with %@ misses the model by %.0f°",
                                                          name == loop.names.0 ? loop.names.1 : loop.names.0, loop.residual))
                }
            }
        }
        closure.check.applies = !loops.isEmpty
        closure.check.figure = (share * 1000).rounded() / 1000
        closure.check.passed = share <= maxLoopDisagreeingShare
        closure.check.failingFrames = closure.check.passed ? []
            : Set(disagreeing.flatMap { [$0.names.0, $0.names.1] }).sorted()
        let worstLoop = disagreeing.max { $0.residual < $1.residual }
        closure.check.evidence = !input.ordered ? "the frames are not in capture order: no loop closures to check"
            : loops.isEmpty ? "no pair matched across \(gap) or more frames of the sequence"
            : disagreeing.isEmpty ? "all \(loops.count) pairs matched across \(gap) or more frames agree with the model"
            : String(format: "%d of %d pairs matched across %d or more frames disagree with the model (worst: %@ and %@, %.0f°)",
                     disagreeing.count, loops.count, gap, worstLoop!.names.0, worstLoop!.names.1, worstLoop!.residual)
        return [agreement, closure]
    }
}
