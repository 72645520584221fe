import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

// Checkpoint encodings of the match graph: matches, matrices and flags as packed bytes, exact
// and compact.

extension PairMatching.Result: Codable {
    enum CodingKeys: String, CodingKey { case graph, staticFeatures = "static_features", tried, strategy }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let tried = try container.decode(Data.self, forKey: .tried).unpacked(as: SIMD2<Int32>.self)
        guard let strategy = PairSelectionOptions.Strategy(rawValue: try container.decode(String.self, forKey: .strategy)) else {
            throw PipelineError.io("matching checkpoint: unknown pair strategy")
        }
        self.init(graph: try container.decode(MatchGraph.self, forKey: .graph),
                  staticFeatures: try container.decode(StaticFeatures.self, forKey: .staticFeatures),
                  tried: Set(tried), strategy: strategy)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(graph, forKey: .graph)
        try container.encode(staticFeatures, forKey: .staticFeatures)
        // Sorted: the same result is the same file.
        try container.encode(Data(packing: tried.sorted { ($0.x, $0.y) < ($1.x, $1.y) }), forKey: .tried)
        try container.encode(strategy.rawValue, forKey: .strategy)
    }
}

extension MatchGraph: Codable {
    enum CodingKeys: String, CodingKey { case numImages = "num_images", edges }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(numImages: try container.decode(Int.self, forKey: .numImages),
                  edges: try container.decode([Edge].self, forKey: .edges))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(numImages, forKey: .numImages)
        try container.encode(edges, forKey: .edges)
    }
}

extension MatchGraph.Edge: Codable {
    enum CodingKeys: String, CodingKey { case first, second, matches, configuration, fundamental }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let configuration = TwoViewGeometry.Configuration(rawValue: try container.decode(Int32.self, forKey: .configuration)) else {
            throw PipelineError.io("matching checkpoint: unknown two-view configuration")
        }
        self.init(first: try container.decode(Int.self, forKey: .first), second: try container.decode(Int.self, forKey: .second),
                  matches: try container.decode(Data.self, forKey: .matches).unpacked(as: SIMD2<Int32>.self),
                  configuration: configuration,
                  fundamental: try container.decode(Data.self, forKey: .fundamental).unpacked(as: Double.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(first, forKey: .first)
        try container.encode(second, forKey: .second)
        try container.encode(Data(packing: matches), forKey: .matches)
        try container.encode(configuration.rawValue, forKey: .configuration)
        try container.encode(Data(packing: fundamental), forKey: .fundamental)
    }
}

extension StaticFeatures: Codable {
    enum CodingKeys: String, CodingKey {
        case isTurntable = "is_turntable", staticPairFraction = "static_pair_fraction", isStatic = "is_static"
        case discardedCount = "discarded_count"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let flags = try container.decode([Data].self, forKey: .isStatic).map { try $0.unpacked(as: UInt8.self).map { $0 != 0 } }
        self.init(isTurntable: try container.decode(Bool.self, forKey: .isTurntable),
                  staticPairFraction: try container.decode(Data.self, forKey: .staticPairFraction).unpacked(as: Double.self).first ?? 0,
                  isStatic: flags, discardedCount: try container.decode(Int.self, forKey: .discardedCount))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isTurntable, forKey: .isTurntable)
        try container.encode(Data(packing: [staticPairFraction]), forKey: .staticPairFraction)
        try container.encode(isStatic.map { Data(packing: $0.map { UInt8($0 ? 1 : 0) }) }, forKey: .isStatic)
        try container.encode(discardedCount, forKey: .discardedCount)
    }
}
