import Foundation
import PhotogrammetryCore

extension PoseCheck {
    /// A verified pair of the match graph, by image name.
    public struct Link: Sendable, Equatable {
        public var first: String
        public var second: String
        /// Verified matches of the pair.
        public var matches: Int

        public init(first: String, second: String, matches: Int) {
            self.first = first
            self.second = second
            self.matches = matches
        }
    }

    /// Verified matches a pair needs to tie its two frames into one part: ``minObservations``
    /// (30), the PnP inliers the mapper asks of a pose. Frames joined only through pairs of fewer
    /// matches cannot be posed from one another, so nothing carries a model across them.
    public static var minLinkMatches: Int { minObservations }

    /// Share of the usable frames the second-largest part must hold to make the capture two
    /// parts: 0.2 (and ``minPartFrames``). A few frames that connect to nothing are frames that
    /// did not align, and the alignment advice speaks of them; a fifth of the capture or more,
    /// well connected inside and not to the rest, is a second subject (or a side of the first
    /// that no photo joins): no single model holds both.
    public static let minPartShare = 0.2
    /// Frames the second-largest part must hold at least: 5, enough to be a model of its own
    /// rather than a stray frame or two.
    public static let minPartFrames = 5

    /// The verified pairs of `graph` with at least one match, by the names of the usable images
    /// its indices stand for.
    public static func links(_ graph: MatchGraph, names: [String]) -> [Link] {
        graph.edges.compactMap { edge in
            guard edge.first < names.count, edge.second < names.count, !edge.matches.isEmpty else { return nil }
            return Link(first: names[edge.first], second: names[edge.second], matches: edge.matches.count)
        }
    }

    /// The parts of the capture, largest first, each in capture order: the frames of `order`
    /// joined through pairs of at least ``minLinkMatches`` matches, and groups of them joined
    /// through ``minLinkMatches`` matches in all (a frame can be posed from several frames of
    /// the other group at once).
    static func parts(order: [String], links: [Link]) -> [[String]] {
        let index = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var parent = Array(order.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        let pairs = links.compactMap { link in index[link.first].flatMap { a in index[link.second].map { (a, $0, link.matches) } } }
        for (a, b, matches) in pairs where matches >= minLinkMatches { parent[root(a)] = root(b) }
        var joined = true
        while joined {
            joined = false
            var between: [SIMD2<Int>: Int] = [:]
            for (a, b, matches) in pairs where root(a) != root(b) {
                between[SIMD2(min(root(a), root(b)), max(root(a), root(b))), default: 0] += matches
            }
            for (groups, matches) in between where matches >= minLinkMatches && root(groups.x) != root(groups.y) {
                parent[root(groups.x)] = root(groups.y)
                joined = true
            }
        }
        let groups = Dictionary(grouping: order.indices, by: root).values.map { $0.sorted() }
        return groups.sorted { ($0.count, -$0[0]) > ($1.count, -$1[0]) }.map { $0.map { order[$0] } }
    }

    /// Runs of consecutive frames of `part` in capture order: "0000.jpg–0023.jpg", or
    /// "0003.jpg" for a run of one; the first four runs and a count.
    static func runs(_ part: [String], order: [String]) -> String {
        let index = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var runs: [(first: String, last: String)] = []
        var previous: Int?
        for name in part {
            guard let i = index[name] else { continue }
            if let p = previous, i == p + 1, !runs.isEmpty { runs[runs.count - 1].last = name } else { runs.append((name, name)) }
            previous = i
        }
        let shown = runs.prefix(4).map { $0.first == $0.last ? $0.first : "\($0.first)–\($0.last)" }
        return "frames " + shown.joined(separator: ", ") + (runs.count > 4 ? " and \(runs.count - 4) more stretches" : "")
    }

    /// Whether the capture is one connected part: the frames do not fall into two or more parts
    /// of at least ``minPartFrames`` and ``minPartShare`` each that share (almost) no matches.
    static func partsCheck(_ model: Reconstruction, _ input: Input) -> Outcome {
        var outcome = Outcome(check: .init(name: "parts", passed: true, threshold: Double(partFrames(among: input.order.count)),
                                           unit: "frames in the second part", evidence: ""),
                              fix: "One subject per capture: run each part as a capture of its own; if they are one "
                                + "subject, add photos that bridge the parts, each sharing about 70% of its view with the "
                                + "last.")
        guard !input.links.isEmpty, input.order.count >= 2 * minPartFrames else {
            outcome.check.applies = false
            outcome.check.evidence = input.links.isEmpty ? "no match graph to find parts in"
                : "\(input.order.count) usable frames: too few for two parts of \(minPartFrames)"
            return outcome
        }
        let all = parts(order: input.order, links: input.links)
        let minimum = partFrames(among: input.order.count)
        let large = all.filter { $0.count >= minimum }
        outcome.check.figure = Double(all.count > 1 ? all[1].count : 0)
        for part in all { trace("pose check: part of \(part.count) frames: \(runs(part, order: input.order))") }
        guard large.count >= 2 else {
            outcome.check.evidence = all.count == 1 ? "every frame is joined to the rest through pairs of \(minLinkMatches) "
                + "matches or more"
                : "the frames outside the largest part (\(input.order.count - all[0].count)) make no part of \(minimum) "
                + "frames or more"
            return outcome
        }
        // The part the model holds, and the strongest tie between the parts.
        let registered = Set(model.images.values.filter(\.isRegistered).map(\.name))
        let modelled = large.max { $0.filter(registered.contains).count < $1.filter(registered.contains).count }!
        var partOf: [String: Int] = [:]
        for (p, part) in large.enumerated() { for name in part { partOf[name] = p } }
        var between: [SIMD2<Int>: Int] = [:]
        var inside: [Int] = []
        let index = Dictionary(input.order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        for link in input.links {
            guard let a = partOf[link.first], let b = partOf[link.second] else { continue }
            if a != b {
                between[SIMD2(min(a, b), max(a, b)), default: 0] += link.matches
            } else if let i = index[link.first], let j = index[link.second], abs(i - j) == 1 {
                inside.append(link.matches)
            }
        }
        let across = between.values.max() ?? 0
        outcome.check.passed = false
        outcome.check.failingFrames = large.filter { $0 != modelled }.flatMap { $0 }
        let listed = large.map { "\(runs($0, order: input.order)) (\($0.count))" }
        let named = listed.count == 2 ? listed.joined(separator: " and ")
            : listed.dropLast().joined(separator: ", ") + " and " + listed.last!
        let inner = inside.isEmpty ? "" : "consecutive frames within a part share \(inside.sorted()[inside.count / 2]) (median), "
        outcome.check.evidence = "the frames show \(large.count) parts that share no matches: \(named); "
            + inner + (across == 0 ? "none between the parts" : "at most \(across) between two of them (a pose needs \(minLinkMatches))")
            + ". Two subjects, or two sides of one that no photo joins: there is no single model"
            + (registered.isEmpty ? "" : ", and this one holds \(runs(modelled.filter(registered.contains), order: input.order))")
        return outcome
    }

    /// Frames the second-largest part must hold for `frames` usable frames.
    static func partFrames(among frames: Int) -> Int {
        max(minPartFrames, Int((minPartShare * Double(frames)).rounded(.up)))
    }
}
