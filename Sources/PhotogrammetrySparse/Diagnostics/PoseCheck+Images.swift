import Foundation
import PhotogrammetryCore

extension PoseCheck {
    /// Observations of 3D points (points seen in at least one other image, kept through bundle
    /// adjustment's filtering) a registered image needs: the PnP inliers the mapper asks of a pose
    /// before it registers one (``MapperOptions/absolutePoseMinNumInliers``, 30). Fewer leave the
    /// pose to a handful of points.
    public static var minObservations: Int { MapperOptions().absolutePoseMinNumInliers }

    /// Side of the grid, in cells, over which an image's spread is counted: 8 × 8.
    static let spreadGrid = 8

    /// Share of the grid cells holding the image's features that hold an observation, at least:
    /// 0.25. A pose from points bunched in a quarter of where the frame has texture is a pose
    /// about that corner: its rotation about the bunch, and its depth, are barely constrained.
    public static let minSpread = 0.25

    /// The inlier count and spread of every registered image.
    static func imageChecks(_ model: Reconstruction, registered: [Image]) -> [Outcome] {
        var counts = Outcome(check: .init(name: "inliers", passed: true, unit: "observations", evidence: ""),
                             fix: "Frames with few points tie badly to the rest: retake them with more of the subject's "
                                + "texture in view, or add photos between them and their neighbours.")
        var spreads = Outcome(check: .init(name: "inlier_spread", passed: true, unit: "share of cells", evidence: ""),
                              fix: "Frames whose points bunch in one corner pose badly: frame the subject so its texture "
                                + "fills more of the view.")
        var fewest: (count: Int, name: String)?, narrowest: (share: Double, name: String)?
        var lowCount: [String] = [], lowSpread: [String] = []
        for image in registered.sorted(by: { $0.name < $1.name }) {
            let count = image.numPoints3D
            if fewest == nil || count < fewest!.count { fewest = (count, image.name) }
            counts.scores[image.name] = (amountScore(Double(count), minimum: Double(minObservations)),
                                         "\(count) observations (needs \(minObservations))")
            if count < minObservations { lowCount.append(image.name) }
            guard let camera = model.cameras[image.cameraID] else { continue }
            let share = spread(image, width: camera.width, height: camera.height)
            if narrowest == nil || share < narrowest!.share { narrowest = (share, image.name) }
            spreads.scores[image.name] = (amountScore(share, minimum: minSpread),
                                          String(format: "observations cover %.0f%% of its textured cells (needs %.0f%%)",
                                                 100 * share, 100 * minSpread))
            if share < minSpread { lowSpread.append(image.name) }
        }
        counts.check.figure = fewest.map { Double($0.count) }
        counts.check.threshold = Double(minObservations)
        counts.check.failingFrames = lowCount
        counts.check.passed = lowCount.isEmpty
        counts.check.applies = fewest != nil
        counts.check.evidence = lowCount.isEmpty
            ? "every registered frame keeps at least \(fewest?.count ?? 0) observations (needs \(minObservations))"
            : "\(CaptureAdvice.frames(lowCount)) \(lowCount.count == 1 ? "keeps" : "keep") fewer than \(minObservations) "
                + "observations of points seen elsewhere (fewest: \(fewest!.count) in \(fewest!.name))"
        spreads.check.figure = narrowest.map { ($0.share * 1000).rounded() / 1000 }
        spreads.check.threshold = minSpread
        spreads.check.failingFrames = lowSpread
        spreads.check.passed = lowSpread.isEmpty
        spreads.check.applies = narrowest != nil
        spreads.check.evidence = lowSpread.isEmpty
            ? String(format: "every registered frame's observations cover at least %.0f%% of the cells where it has features",
                     100 * (narrowest?.share ?? 1))
            : String(format: "%@ %@ observations bunched in under %.0f%% of the cells where %@ features (least: %.0f%% in %@)",
                     CaptureAdvice.frames(lowSpread), lowSpread.count == 1 ? "has its" : "have their", 100 * minSpread,
                     lowSpread.count == 1 ? "it has" : "they have", 100 * narrowest!.share, narrowest!.name)
        return [counts, spreads]
    }

    /// Share of the ``spreadGrid`` cells holding any of `image`'s features that hold one of its
    /// observations (1 for an image without features).
    static func spread(_ image: Image, width: Int, height: Int) -> Double {
        let n = spreadGrid
        func cell(_ p: SIMD2<Double>) -> Int? {
            let x = Int(p.x / Double(max(1, width)) * Double(n)), y = Int(p.y / Double(max(1, height)) * Double(n))
            guard (0..<n).contains(x), (0..<n).contains(y) else { return nil }
            return y * n + x
        }
        var featured = Set<Int>(), observed = Set<Int>()
        for (k, p) in image.points2D.enumerated() {
            guard let c = cell(p) else { continue }
            featured.insert(c)
            if k < image.point3DIDs.count, image.point3DIDs[k] != nil { observed.insert(c) }
        }
        return featured.isEmpty ? 1 : Double(observed.count) / Double(featured.count)
    }
}
