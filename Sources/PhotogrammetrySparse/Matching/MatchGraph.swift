import PhotogrammetryBridge

/// The verified matches between images: the input of track building and SfM.
public struct MatchGraph: Sendable {
    /// One verified image pair.
    public struct Edge: Sendable {
        /// Indices of the two images (into the capture's image list), `first < second`.
        public var first: Int
        public var second: Int
        /// Geometrically verified matches: keypoint index in `first`, keypoint index in `second`.
        public var matches: [SIMD2<Int32>]
        /// How the two views are related (general, planar, panoramic).
        public var configuration: TwoViewGeometry.Configuration
        /// The fundamental matrix (row-major, pixels) the matches satisfy.
        public var fundamental: [Double]

        public init(first: Int, second: Int, matches: [SIMD2<Int32>],
                    configuration: TwoViewGeometry.Configuration, fundamental: [Double] = []) {
            self.first = first
            self.second = second
            self.matches = matches
            self.configuration = configuration
            self.fundamental = fundamental
        }
    }

    /// How many images the graph spans.
    public var numImages: Int
    /// The verified pairs.
    public var edges: [Edge]

    public init(numImages: Int, edges: [Edge] = []) {
        self.numImages = numImages
        self.edges = edges
    }

    /// For each image, the indices of the edges it takes part in.
    public func edgesByImage() -> [[Int]] {
        var result = Array(repeating: [Int](), count: numImages)
        for (index, edge) in edges.enumerated() {
            result[edge.first].append(index)
            result[edge.second].append(index)
        }
        return result
    }

    /// The share of consecutive images (by name) that form a verified pair: near 1 for a video or
    /// photos taken in order, low for an unordered collection.
    public var consecutiveFraction: Double {
        guard numImages > 1 else { return 0 }
        let consecutive = Set(edges.filter { $0.second == $0.first + 1 }.map(\.first)).count
        return Double(consecutive) / Double(numImages - 1)
    }
}

extension TwoViewGeometry.Configuration {
    /// Whether the pair has enough parallax to initialise a reconstruction.
    public var hasGeneralMotion: Bool { self == .calibrated || self == .uncalibrated }
}
