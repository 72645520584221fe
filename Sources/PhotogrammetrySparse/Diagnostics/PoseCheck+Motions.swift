import Foundation
import PhotogrammetryCore

extension PoseCheck {
    /// How many of a verified pair's matches the model explains.
    public struct PairSupport: Sendable, Equatable {
        public var first: ImageID
        public var second: ImageID
        /// Matches with a 3D point of the model behind at least one of their keypoints.
        public var judged: Int
        /// Of those, the ones the model explains: both keypoints observe the same point, or a
        /// keypoint's point projects onto the other keypoint within ``maxExplainedErrorPx``.
        public var explained: Int

        public init(first: ImageID, second: ImageID, judged: Int, explained: Int) {
            self.first = first
            self.second = second
            self.judged = judged
            self.explained = explained
        }
    }

    /// Distance, pixels, within which a model point's projection explains a matched keypoint:
    /// twice the reprojection error bundle adjustment keeps an observation at
    /// (``MapperOptions/filterMaxReprojectionErrorPx``, 4), for keypoints the filter dropped
    /// near its limit. A match that follows another motion lands tens of pixels away.
    public static var maxExplainedErrorPx: Double { 2 * MapperOptions().filterMaxReprojectionErrorPx }

    /// Share of a pair's judged matches the model must explain: 0.5. A pair's verified matches
    /// satisfy one epipolar geometry (matching's RANSAC kept them); when the model explains
    /// fewer than half, the pair's own motion is not the model's: part of the scene moved
    /// between the two frames differently from the part the model follows (an object slipping
    /// on a patterned plate: the plate's matches say one turn, the object's another).
    public static let minExplainedShare = 0.5

    /// Each verified pair of registered images (``PairSupport``), the matches as the graph holds
    /// them (keypoint indices of the model's images).
    /// - Parameter imageIDs: the model's image of each graph index (nil: not in the model).
    public static func pairSupport(_ graph: MatchGraph, model: Reconstruction, imageIDs: [ImageID?]) -> [PairSupport] {
        graph.edges.compactMap { edge in
            guard edge.first < imageIDs.count, edge.second < imageIDs.count,
                  let id1 = imageIDs[edge.first], let id2 = imageIDs[edge.second],
                  let image1 = model.images[id1], let image2 = model.images[id2],
                  image1.isRegistered, image2.isRegistered else { return nil }
            var judged = 0, explained = 0
            for match in edge.matches {
                let k1 = Int(match.x), k2 = Int(match.y)
                guard k1 < image1.point3DIDs.count, k2 < image2.point3DIDs.count else { continue }
                let p1 = image1.point3DIDs[k1], p2 = image2.point3DIDs[k2]
                guard p1 != nil || p2 != nil else { continue }
                judged += 1
                if p1 == p2 || explains(p1, image2, k2, model) || explains(p2, image1, k1, model) { explained += 1 }
            }
            return PairSupport(first: id1, second: id2, judged: judged, explained: explained)
        }
    }

    /// Whether point `id` projects into `image` within ``maxExplainedErrorPx`` of its keypoint `k`.
    static func explains(_ id: Point3DID?, _ image: Image, _ k: Int, _ model: Reconstruction) -> Bool {
        guard let id, let point = model.points3D[id] else { return false }
        let element = TrackElement(imageID: image.id, point2DIndex: k)
        return (model.reprojectionError(of: element, position: point.position) ?? .infinity) <= maxExplainedErrorPx
    }

    /// Share of the median consecutive pair's judged matches below which two consecutive frames
    /// are not neighbours in the capture: 0.2. Files named in turn are not always taken side by
    /// side: the last frame of one ring and the first of the next share a few matches of repeated
    /// texture and chance (synthetic-orbit's ring change: 38, a tenth of the median), which no
    /// model need explain. A slip between true neighbours keeps the plate's matches (broken-slip:
    /// 74, 0.3 of the median).
    public static let minNeighbourShare = 0.2

    /// Whether the model explains the matches of every pair of consecutive frames (an ordered
    /// capture's strongest pairs) that has ``minLinkMatches`` judged matches and at least
    /// ``minNeighbourShare`` of the median consecutive pair's.
    static func motionCheck(_ model: Reconstruction, _ input: Input) -> Outcome {
        var outcome = Outcome(check: .init(name: "one_motion", passed: true, threshold: minExplainedShare,
                                           unit: "share of a pair's matches the model explains", evidence: ""),
                              fix: "Part of the scene moved between those frames (the object slipped or was nudged on "
                                + "the turntable, or something in view was moved): fix the object to the plate and retake "
                                + "from there, or mask the object (--mask) so that only it is reconstructed.")
        let index = Dictionary(input.order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var judged: [(first: String, second: String, support: PairSupport)] = []
        for support in input.support {
            guard let a = model.images[support.first]?.name, let b = model.images[support.second]?.name else { continue }
            trace("pose check: pair \(a) \(b) explains \(support.explained) of \(support.judged) matches")
            guard input.ordered, let i = index[a], let j = index[b], abs(i - j) == 1,
                  support.judged >= minLinkMatches else { continue }
            judged.append(i < j ? (a, b, support) : (b, a, support))
        }
        let counts = judged.map(\.support.judged).sorted()
        if let median = counts.isEmpty ? nil : counts[counts.count / 2] {
            judged.removeAll { Double($0.support.judged) < minNeighbourShare * Double(median) }
        }
        guard !judged.isEmpty else {
            outcome.check.applies = false
            outcome.check.evidence = input.ordered
                ? "no pair of consecutive frames with \(minLinkMatches) matches on the model's points"
                : "the frames are not in capture order: no consecutive frames to check"
            return outcome
        }
        judged.sort { index[$0.first]! < index[$1.first]! }
        func share(_ s: PairSupport) -> Double { Double(s.explained) / Double(s.judged) }
        var failing: [(first: String, second: String, support: PairSupport)] = []
        for pair in judged {
            let value = share(pair.support)
            let reason = String(format: "the model explains %d of the %d matches between %@ and %@ (needs half)",
                                pair.support.explained, pair.support.judged, pair.first, pair.second)
            // Scored by the share left unexplained: 1 up to a quarter, 0.5 at half, 0 at all.
            let score = errorScore(1 - value, threshold: 1 - minExplainedShare)
            for name in [pair.first, pair.second] where (outcome.scores[name]?.score ?? 1) > score {
                outcome.scores[name] = (score, reason)
            }
            if value < minExplainedShare { failing.append(pair) }
        }
        let least = judged.min { share($0.support) < share($1.support) }!
        outcome.check.figure = (share(least.support) * 1000).rounded() / 1000
        outcome.check.passed = failing.isEmpty
        outcome.check.failingFrames = failing.map(\.second)
        let shown = failing.prefix(4).map { "\($0.first) → \($0.second): \($0.support.explained) of \($0.support.judged)" }
            .joined(separator: ", ") + (failing.count > 4 ? ", …" : "")
        outcome.check.evidence = failing.isEmpty
            ? String(format: "the model explains at least %.0f%% of the matches of every pair of consecutive frames (%d pairs)",
                     100 * share(least.support), judged.count)
            : failing.count == 1
            ? "at frame \(failing[0].second) the scene moved two ways: the model explains \(failing[0].support.explained) of the "
                + "\(failing[0].support.judged) matches between \(failing[0].first) and \(failing[0].second), which follow "
                + "another rigid motion (part of the scene, such as an object on its plate, moved differently from the rest)"
            : "at \(failing.count) places the scene moved two ways: the model explains under half of the matches of "
                + "consecutive frames \(shown), which follow another rigid motion (part of the scene moved differently "
                + "from the rest)"
        return outcome
    }
}
