import Foundation
import PhotogrammetryCore

/// Options of spatial re-matching: which registered cameras look at the same part of the scene.
public struct SpatialPairOptions: Sendable {
    /// Candidates of an image: its this many registered cameras nearest by centre. Default 30
    /// (as many as retrieval's neighbours).
    public var maxNeighbours = 30
    /// Optical axes at most this far apart, in degrees. Default 60: SIFT finds few correct
    /// matches across larger changes of viewpoint (Mikolajczyk et al. 2005), so such pairs are
    /// not worth matching even when both cameras frame the same points.
    public var maxViewAngleDegrees = 60.0
    /// At least this share of one image's 3D points must project inside the other image, in front
    /// of it. Default 0.3: the two frames share a good part of what one of them sees.
    public var minCovisibleFraction = 0.3

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard maxNeighbours >= 1, maxViewAngleDegrees > 0, (0...1).contains(minCovisibleFraction) else {
            throw PipelineError.invalidOption("spatial pairs: maxNeighbours >= 1, maxViewAngleDegrees > 0, minCovisibleFraction in [0, 1]")
        }
    }
}

/// Pairs for a second matching pass, once a first sparse model exists.
extension PairSelection {
    /// Transitive pairs (COLMAP's transitive matcher): i–j and j–k verified, i–k never tried.
    ///
    /// - Parameters:
    ///   - graph: the verified pairs.
    ///   - tried: every pair matched so far, verified or not, as (min, max).
    ///   - minMatches: edges with fewer verified matches do not link (0: every edge does).
    ///   - maxPerImage: at most this many pairs per image (nil: all), the most promising first:
    ///     by the sum over common neighbours j of min(matches i–j, matches j–k).
    /// - Returns: the pairs (i, k), i < k, sorted; run it again after matching them to follow
    ///   longer chains.
    public static func transitivePairs(graph: MatchGraph, tried: Set<SIMD2<Int32>>, minMatches: Int = 0,
                                       maxPerImage: Int? = nil) -> [SIMD2<Int32>] {
        var neighbours = Array(repeating: [Int: Int](), count: graph.numImages)
        for edge in graph.edges where edge.matches.count >= minMatches && edge.first != edge.second {
            neighbours[edge.first][edge.second] = max(neighbours[edge.first][edge.second] ?? 0, edge.matches.count)
            neighbours[edge.second][edge.first] = max(neighbours[edge.second][edge.first] ?? 0, edge.matches.count)
        }
        var support = [SIMD2<Int32>: Int]()
        for list in neighbours {
            let sorted = list.keys.sorted()
            for a in 0..<sorted.count {
                for b in (a + 1)..<max(a + 1, sorted.count) {
                    let pair = SIMD2(Int32(sorted[a]), Int32(sorted[b]))
                    if !tried.contains(pair) { support[pair, default: 0] += min(list[sorted[a]]!, list[sorted[b]]!) }
                }
            }
        }
        guard let maxPerImage else { return support.keys.sorted { ($0.x, $0.y) < ($1.x, $1.y) } }
        // Each image keeps its best candidates; a pair stays when either of its images keeps it.
        var kept = Set<SIMD2<Int32>>()
        var byImage = Array(repeating: [(SIMD2<Int32>, Int)](), count: graph.numImages)
        for (pair, value) in support {
            byImage[Int(pair.x)].append((pair, value))
            byImage[Int(pair.y)].append((pair, value))
        }
        for list in byImage {
            let best = list.sorted { ($1.1, $0.0.x, $0.0.y) < ($0.1, $1.0.x, $1.0.y) }.prefix(maxPerImage)
            kept.formUnion(best.map(\.0))
        }
        return kept.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }

    /// Spatial pairs: registered cameras near each other whose optical axes agree and one of
    /// which sees a good part of the other's 3D points, never tried before.
    ///
    /// - Parameters:
    ///   - reconstruction: a model with poses and 3D points.
    ///   - tried: every pair matched so far, as (min, max) image indices.
    ///   - imageIndex: the index (into the features and the match graph) of an image; the
    ///     pipeline numbers images index + 1.
    /// - Returns: the pairs (i, j), i < j, sorted.
    public static func spatialPairs(reconstruction: Reconstruction, tried: Set<SIMD2<Int32>>,
                                    imageIndex: (ImageID) -> Int = { $0.rawValue - 1 },
                                    options: SpatialPairOptions = SpatialPairOptions()) -> [SIMD2<Int32>] {
        let registered = reconstruction.images.values.filter(\.isRegistered).sorted { $0.id < $1.id }
        let centres = registered.map { $0.camFromWorld!.centerInWorld }
        let axes = registered.map { $0.camFromWorld!.viewingDirectionInWorld }
        // Each image's 3D points, once.
        let points = registered.map { image -> [SIMD3<Double>] in
            Set(image.point3DIDs.compactMap { $0 }).sorted().compactMap { reconstruction.points3D[$0]?.position }
        }
        let minCosine = cos(options.maxViewAngleDegrees * .pi / 180)

        /// The share of `a`'s points that image `b` frames in front of it.
        func covisible(_ a: Int, in b: Int) -> Double {
            guard !points[a].isEmpty, let pose = registered[b].camFromWorld,
                  let camera = reconstruction.cameras[registered[b].cameraID] else { return 0 }
            let width = Double(camera.width), height = Double(camera.height)
            let inside = points[a].filter { point in
                guard let pixel = camera.project(pose.apply(point)) else { return false }
                return pixel.x >= 0 && pixel.y >= 0 && pixel.x < width && pixel.y < height
            }
            return Double(inside.count) / Double(points[a].count)
        }

        var result = Set<SIMD2<Int32>>()
        for a in registered.indices {
            let nearest = registered.indices.filter { $0 != a }
                .sorted { (length(centres[$0] - centres[a]), $0) < (length(centres[$1] - centres[a]), $1) }
                .prefix(options.maxNeighbours)
            for b in nearest {
                let i = imageIndex(registered[a].id), j = imageIndex(registered[b].id)
                let pair = SIMD2(Int32(min(i, j)), Int32(max(i, j)))
                guard !tried.contains(pair), !result.contains(pair), dot(axes[a], axes[b]) >= minCosine else { continue }
                if max(covisible(a, in: b), covisible(b, in: a)) >= options.minCovisibleFraction { result.insert(pair) }
            }
        }
        return result.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }
}
