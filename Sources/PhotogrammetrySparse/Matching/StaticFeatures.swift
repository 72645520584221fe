import PhotogrammetryCore

/// Options of static-feature detection: what a fixed camera watching a turning object looks like.
public struct StaticFeatureOptions: Sendable {
    /// Look for a fixed camera at all. Default true.
    public var enabled = true
    /// A putative match is stationary when its keypoints are at most this far apart, as a fraction
    /// of the image diagonal (0.0025 is 2 px at 640×480, 2.5 px at 800×600). Default 0.0025.
    public var maxDisplacementFraction = 0.0025
    /// A pair is static when it holds at least this many stationary matches. Default 12.
    public var minStationaryMatches = 12
    /// ... and they are at least this fraction of its putative matches. Default 0.1.
    public var minStationaryFraction = 0.1
    /// The capture is a turntable capture when at least this fraction of the pairs that match at
    /// all are static: then background features are seen in most pairs, far apart in the turn
    /// as well as near (turntable-temple, synthetic-turntable: every pair). A moving camera
    /// makes static pairs only out of near-duplicate frames (templeRing's frames 1-4 and 21-24
    /// alone: 4 of 13 pairs). Default 0.6.
    public var minStaticPairFraction = 0.6
    /// Pairs with fewer putative matches take no part in the vote. Default 20.
    public var minPutativeMatches = 20
    /// ... and the stationary keypoints must spread across the image: their scatter's smaller
    /// standard deviation at least this fraction of the diagonal (0.02 is 16 px at 640×480).
    /// A camera orbiting an object also sees points stand still between neighbouring frames:
    /// those on the axis it turns about, which image to one line. Background spreads in 2D.
    /// Default 0.02.
    public var minStationarySpreadFraction = 0.02

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard maxDisplacementFraction > 0, maxDisplacementFraction < 0.1 else {
            throw PipelineError.invalidOption("static features: maxDisplacementFraction in (0, 0.1)")
        }
        guard minStationaryMatches >= 1, (0...1).contains(minStationaryFraction),
              (0...1).contains(minStaticPairFraction), minPutativeMatches >= 1,
              minStationarySpreadFraction >= 0 else {
            throw PipelineError.invalidOption("static features: counts >= 1, fractions in [0, 1]")
        }
    }
}

/// Features that stay put across frames: the background of a turntable capture.
///
/// With the phone on a tripod and the object turning, everything that is not the object (the
/// backdrop, the table, a rectangle's margins) keeps its pixel position in every frame. Those
/// matches are perfect for a homography with no motion and poison for the object's poses: they
/// say the camera did not move. They are recognised from the putative matches alone — a match
/// whose keypoints coincide — before geometric verification, so they never reach RANSAC.
public struct StaticFeatures: Sendable {
    /// Whether the capture looks like a fixed camera watching a turning object.
    public var isTurntable: Bool
    /// Static pairs / pairs with enough putative matches.
    public var staticPairFraction: Double
    /// Per image and keypoint: whether it is static (only filled for turntable captures).
    public var isStatic: [[Bool]]
    /// Keypoints marked static over all images.
    public var discardedCount: Int

    /// No static features: a moving camera.
    public static func none(keypointCounts: [Int]) -> StaticFeatures {
        StaticFeatures(isTurntable: false, staticPairFraction: 0,
                       isStatic: keypointCounts.map { Array(repeating: false, count: $0) }, discardedCount: 0)
    }

    /// Finds static features from putative matches.
    /// - Parameters:
    ///   - pairs: the matched image pairs.
    ///   - matches: for each pair, putative matches (keypoint in first, keypoint in second).
    ///   - positions: keypoint positions per image, pixels.
    ///   - imageSizes: per image (width, height); a fixed camera gives every frame the same size.
    public static func detect(pairs: [SIMD2<Int32>], matches: [[SIMD2<Int32>]], positions: [[SIMD2<Double>]],
                              imageSizes: [SIMD2<Int>], options: StaticFeatureOptions) -> StaticFeatures {
        var result = none(keypointCounts: positions.map(\.count))
        guard options.enabled, let size = imageSizes.first, imageSizes.allSatisfy({ $0 == size }) else {
            return result
        }
        let diagonal = (Double(size.x * size.x + size.y * size.y)).squareRoot()
        let isStationary = stationaryTest(positions: positions, imageSize: size, options: options)
        var voting = 0, staticPairs = 0
        for (p, pairMatches) in matches.enumerated() where pairMatches.count >= options.minPutativeMatches {
            voting += 1
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            let stationary = pairMatches.filter { isStationary($0, i, j) }.map { positions[i][Int($0.x)] }
            if stationary.count >= options.minStationaryMatches,
               Double(stationary.count) >= options.minStationaryFraction * Double(pairMatches.count),
               smallerStandardDeviation(stationary) >= options.minStationarySpreadFraction * diagonal {
                staticPairs += 1
            }
        }
        result.staticPairFraction = voting > 0 ? Double(staticPairs) / Double(voting) : 0
        result.isTurntable = result.staticPairFraction >= options.minStaticPairFraction
        guard result.isTurntable else { return result }
        // Every keypoint that sits still in some pair is background. A point on the turning axis
        // also sits still; losing those few object points costs little.
        for (p, pairMatches) in matches.enumerated() {
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            for m in pairMatches where isStationary(m, i, j) {
                result.isStatic[i][Int(m.x)] = true
                result.isStatic[j][Int(m.y)] = true
            }
        }
        result.discardedCount = result.isStatic.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 ? 1 : 0) } }
        return result
    }

    /// The smaller principal standard deviation of 2D points: how far they are from one line.
    static func smallerStandardDeviation(_ points: [SIMD2<Double>]) -> Double {
        guard points.count >= 3 else { return 0 }
        let mean = points.reduce(SIMD2<Double>(0, 0), +) / Double(points.count)
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for p in points {
            let d = p - mean
            sxx += d.x * d.x
            syy += d.y * d.y
            sxy += d.x * d.y
        }
        let n = Double(points.count)
        sxx /= n
        syy /= n
        sxy /= n
        // Smaller eigenvalue of [[sxx, sxy], [sxy, syy]].
        let smaller = 0.5 * (sxx + syy) - ((0.5 * (sxx - syy)) * (0.5 * (sxx - syy)) + sxy * sxy).squareRoot()
        return max(0, smaller).squareRoot()
    }

    /// These static features for images whose keypoint lists have grown (finer features are
    /// appended after the earlier keypoints, which keep their indices): a keypoint beyond the
    /// earlier lists is static when it sits still in some pair of `matches`, as the first pass
    /// would have found. Without a turntable nothing is static.
    public func extended(pairs: [SIMD2<Int32>], matches: [[SIMD2<Int32>]], positions: [[SIMD2<Double>]],
                         imageSizes: [SIMD2<Int>], options: StaticFeatureOptions) -> StaticFeatures {
        var result = self
        for (i, keypoints) in positions.enumerated() {
            if i >= result.isStatic.count { result.isStatic.append([]) }
            let known = result.isStatic[i].count
            if keypoints.count > known { result.isStatic[i] += Array(repeating: false, count: keypoints.count - known) }
        }
        guard isTurntable, let size = imageSizes.first else { return result }
        let earlierCounts = isStatic.map(\.count)
        func isNew(_ image: Int, _ keypoint: Int) -> Bool {
            image >= earlierCounts.count || keypoint >= earlierCounts[image]
        }
        let stationary = Self.stationaryTest(positions: positions, imageSize: size, options: options)
        for (p, pairMatches) in matches.enumerated() {
            let i = Int(pairs[p].x), j = Int(pairs[p].y)
            for m in pairMatches where (isNew(i, Int(m.x)) || isNew(j, Int(m.y))) && stationary(m, i, j) {
                result.isStatic[i][Int(m.x)] = true
                result.isStatic[j][Int(m.y)] = true
            }
        }
        result.discardedCount = result.isStatic.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 ? 1 : 0) } }
        return result
    }

    /// Whether a match's keypoints (keypoint of image i, keypoint of image j) coincide within
    /// `maxDisplacementFraction` of the image diagonal.
    static func stationaryTest(positions: [[SIMD2<Double>]], imageSize size: SIMD2<Int>, options: StaticFeatureOptions)
        -> (SIMD2<Int32>, Int, Int) -> Bool {
        let diagonal = (Double(size.x * size.x + size.y * size.y)).squareRoot()
        let maxDistanceSquared = (options.maxDisplacementFraction * diagonal) * (options.maxDisplacementFraction * diagonal)
        return { m, i, j in
            let d = positions[i][Int(m.x)] - positions[j][Int(m.y)]
            return (d * d).sum() <= maxDistanceSquared
        }
    }

    /// The matches of a pair without those that touch a static keypoint.
    public func filter(_ matches: [SIMD2<Int32>], first: Int, second: Int) -> [SIMD2<Int32>] {
        guard isTurntable else { return matches }
        return matches.filter { !isStatic[first][Int($0.x)] && !isStatic[second][Int($0.y)] }
    }
}

