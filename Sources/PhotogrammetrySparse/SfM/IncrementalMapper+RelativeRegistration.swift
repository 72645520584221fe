import PhotogrammetryCore

extension IncrementalMapper {
    /// Registers an image that PnP could not, from its two-view geometry with a registered
    /// neighbour: rotation and direction of travel from their essential matrix, distance from
    /// the 3D points the image sees. Returns its index, or nil when no image can be added.
    ///
    /// Video through foliage, glass and lawn leaves runs of frames linked only to their
    /// immediate neighbours by 15-50 matches: a track rarely spans three of them, so a frame
    /// sees too few triangulated points for PnP's six degrees of freedom (30 inliers), and
    /// COLMAP's mapper, like ours before this, starts a new model at each such frame. The
    /// essential matrix of the pair fixes five of the six; the one left, how far the camera
    /// moved, is a one-parameter fit that a handful of points decide
    /// (``MapperOptions/relativeRegistrationMinPoints``). Bundle adjustment then refines the
    /// pose with the points the pair triangulates.
    ///
    /// In a sequence (a video, photos in order), a frame that sees fewer points than that (a
    /// camera passing through foliage: pavilion-outer's frames 84-86 see 2 to 8) takes the
    /// distance from its neighbours' speed (``motionStep(image:from:)``), and bundle adjustment
    /// keeps it there through the sequence's motion prior (``motionPrior()``) until the points
    /// it triangulates say otherwise.
    func registerByRelativePose() throws -> Int? {
        guard options.relativeRegistrationMinMatches > 0 else { return nil }
        var candidates: [(matches: Int, edge: Int, image: Int, registered: Int)] = []
        // Planar and rotation-dominated pairs too (glass fronts, lawns, a turn on the spot):
        // the five-point solver copes with a plane, and the points then check the pose.
        for (e, edge) in graph.edges.enumerated() where edge.configuration != .degenerate
            && edge.matches.count >= options.relativeRegistrationMinMatches && !relativeRegistrationTried.contains(e) {
            let (a, b) = (edge.first, edge.second)
            if isRegistered(a) != isRegistered(b) {
                let (image, registered) = isRegistered(a) ? (b, a) : (a, b)
                guard isAllowed(image), cameraCalibrated[camera(ofImage: image).id] == true else { continue }
                candidates.append((edge.matches.count, e, image, registered))
            }
        }
        candidates.sort { ($0.matches, -$0.edge) > ($1.matches, -$1.edge) }
        for candidate in candidates where !isRegistered(candidate.image) {
            relativeRegistrationTried.insert(candidate.edge)
            if registerFromPair(edge: candidate.edge, image: candidate.image, registered: candidate.registered) {
                return candidate.image
            }
        }
        return nil
    }

    /// Poses `image` from the essential matrix of `edge` with the registered image `registered`
    /// and the distance that puts most of its triangulated correspondences where it sees them.
    func registerFromPair(edge e: Int, image i: Int, registered j: Int) -> Bool {
        // The points come first: without enough of them no essential matrix helps.
        let (keypoints, pointIDs, positions) = triangulatedCorrespondences(of: i)
        let step = motionStep(image: i, from: j)
        guard keypoints.count >= options.relativeRegistrationMinPoints || step != nil else {
            trace("relative \(i) from \(j): \(keypoints.count) points, too few for the distance")
            return false
        }
        let edge = graph.edges[e]
        let cameraI = camera(ofImage: i), cameraJ = camera(ofImage: j)
        let (first, second) = (camera(ofImage: edge.first), camera(ofImage: edge.second))
        let points1 = edge.matches.map { first.normalized(keypoint(edge.first, Int($0.x))) }
        let points2 = edge.matches.map { second.normalized(keypoint(edge.second, Int($0.y))) }
        let focal = 0.5 * (cameraI.meanFocalLength + cameraJ.meanFocalLength)
        guard let (cam2FromCam1, inliers) = try? estimateRelativePose(
                points1, points2, maxError: options.absolutePoseMaxErrorPx / focal),
              inliers.filter({ $0 }).count >= options.relativeRegistrationMinMatches,
              let camJFromWorld = reconstruction.images[ImageID(j + 1)]!.camFromWorld else {
            trace("relative \(i) from \(j): the essential matrix of \(edge.matches.count) matches does not hold")
            return false
        }
        let camIFromCamJ = edge.first == j ? cam2FromCam1 : cam2FromCam1.inverse

        // camIFromWorld = (R, t0 + s * direction): only s, the distance travelled, is unknown.
        let rotation = camIFromCamJ.rotation * camJFromWorld.rotation
        let t0 = camIFromCamJ.rotation * camJFromWorld.translation
        let direction = camIFromCamJ.translation
        // Each point in the camera's orientation; the camera then sees it at rotated + translation.
        let rotated = positions.map { rotation * $0 }
        let rays = keypoints.map { cameraI.normalized(keypoint(i, $0)) }
        let threshold = options.absolutePoseMaxErrorPx / cameraI.meanFocalLength
        func fitting(_ translation: SIMD3<Double>) -> [Int] {
            rotated.indices.filter { n in
                let p = rotated[n] + translation
                guard p.z > 1e-9 else { return false }
                let error = SIMD2(p.x / p.z, p.y / p.z) - rays[n]
                return (error * error).sum() < threshold * threshold
            }
        }
        // Too few points to decide the distance: a sequence's speed does.
        func registerByMotion() -> Bool {
            guard let step, rotationAgreesWithViewGraph(i, rotation) else { return false }
            let translation = t0 + step * direction
            let observations = fitting(translation).map { (keypoints[$0], pointIDs[$0]) }
            trace("register \(i) by motion from \(j): matches \(edge.matches.count), step \(step), points \(observations.count) of \(keypoints.count), n=\(numRegistered + 1)")
            register(i, camFromWorld: Rigid3(rotation: rotation, translation: translation), observations: observations)
            registeredByMotion.insert(i)
            return true
        }
        if keypoints.count < options.relativeRegistrationMinPoints { return registerByMotion() }
        // Candidate translations, as RANSAC over two minimal models: one point fixes the
        // distance along the essential matrix's direction of travel; two points fix the whole
        // translation under its rotation (that direction is the weaker part of E when the
        // baseline is short).
        var candidates: [SIMD3<Double>] = []
        for n in rotated.indices {
            if let s = Self.distanceAlong(direction, base: rotated[n] + t0, ray: rays[n]), s >= 0 {
                candidates.append(t0 + s * direction)
            }
        }
        let sampled = Array(rotated.indices.prefix(Self.maxTwoPointSamples))
        for a in sampled {
            for b in sampled where b > a {
                if let t = Self.translation(rotated: [rotated[a], rotated[b]], rays: [rays[a], rays[b]]) {
                    candidates.append(t)
                }
            }
        }
        var best: (translation: SIMD3<Double>, inliers: [Int])?
        for t in candidates {
            let fit = fitting(t)
            if fit.count > (best?.inliers.count ?? 0) { best = (t, fit) }
        }
        guard var found = best else { return registerByMotion() }
        // Least squares over the inliers, kept when it loses none.
        if let refined = Self.translation(rotated: found.inliers.map { rotated[$0] }, rays: found.inliers.map { rays[$0] }) {
            let fit = fitting(refined)
            if fit.count >= found.inliers.count { found = (refined, fit) }
        }
        guard found.inliers.count >= options.relativeRegistrationMinPoints,
              Double(found.inliers.count) >= options.absolutePoseMinInlierRatio * Double(keypoints.count) else {
            trace("relative \(i) from \(j): \(found.inliers.count) of \(keypoints.count) points fit")
            return found.inliers.count < options.relativeRegistrationMinPoints && registerByMotion()
        }
        guard rotationAgreesWithViewGraph(i, rotation) else { return false }
        trace("register \(i) by relative pose from \(j): matches \(edge.matches.count), points \(found.inliers.count) of \(keypoints.count), n=\(numRegistered + 1)")
        register(i, camFromWorld: Rigid3(rotation: rotation, translation: found.translation),
                 observations: found.inliers.map { (keypoints[$0], pointIDs[$0]) })
        numRegisteredByRelativePose += 1
        return true
    }

    /// Registers image `i` at `camFromWorld`, observing the given points.
    private func register(_ i: Int, camFromWorld: Rigid3, observations: [(keypoint: Int, point: Point3DID)]) {
        let imageID = ImageID(i + 1)
        reconstruction.images[imageID]!.camFromWorld = camFromWorld
        registrationOrder.append(i)
        for (keypoint, point) in observations {
            reconstruction.addObservation(TrackElement(imageID: imageID, point2DIndex: keypoint), to: point)
        }
    }

    /// In a sequence, the distance from neighbour `j` at which image `i` is expected: the median
    /// step of the registered frames leading up to `j` (at most ``motionStepWindow``), as the
    /// camera keeps its speed from frame to frame; nil when `j`'s other neighbour is not registered.
    package func motionStep(image i: Int, from j: Int) -> Double? {
        guard abs(i - j) == 1, isSequence else { return nil }
        let away = j - i
        var steps: [Double] = []
        var m = j
        while steps.count < Self.motionStepWindow, (0..<graph.numImages).contains(m + away),
              let center = reconstruction.images[ImageID(m + 1)]!.camFromWorld?.centerInWorld,
              let previous = reconstruction.images[ImageID(m + away + 1)]!.camFromWorld?.centerInWorld {
            steps.append(length(center - previous))
            m += away
        }
        guard let step = steps.median(), step > 0 else { return nil }
        return step
    }

    /// Steps a sequence's speed is the median of: 5, a sixth of a second of 30 fps video, over which
    /// a camera carried by hand or drone keeps its speed, and enough that one odd step does not set it.
    static let motionStepWindow = 5

    /// Points beyond this many are not paired for the two-point model (their count grows as the
    /// square); 60 points are 1,770 pairs.
    static let maxTwoPointSamples = 60

    /// The distance `s` along `direction` that best puts `base + s * direction` on the ray
    /// through the normalised point `ray` (least squares in its two image-plane equations), or
    /// nil when the ray runs along the direction (the epipole).
    static func distanceAlong(_ direction: SIMD3<Double>, base: SIMD3<Double>, ray: SIMD2<Double>) -> Double? {
        let c = SIMD2(direction.x - ray.x * direction.z, direction.y - ray.y * direction.z)
        let d = SIMD2(ray.x * base.z - base.x, ray.y * base.z - base.y)
        let norm = (c * c).sum()
        return norm > 1e-12 ? (c * d).sum() / norm : nil
    }

    /// The translation `t` that best puts every `rotated[n] + t` on the ray through `rays[n]`
    /// (linear least squares, two equations a point), or nil when they do not determine it.
    package static func translation(rotated: [SIMD3<Double>], rays: [SIMD2<Double>]) -> SIMD3<Double>? {
        // Each point: [1 0 -u; 0 1 -v] t = [u z - x; v z - y]. Normal equations A^T A t = A^T b.
        var ata = [SIMD3<Double>](repeating: .zero, count: 3)
        var atb = SIMD3<Double>.zero
        for (x, ray) in zip(rotated, rays) {
            for (row, rhs) in [(SIMD3(1, 0, -ray.x), ray.x * x.z - x.x), (SIMD3(0, 1, -ray.y), ray.y * x.z - x.y)] {
                ata[0] += row.x * row
                ata[1] += row.y * row
                ata[2] += row.z * row
                atb += rhs * row
            }
        }
        let m = Matrix3(rows: ata[0], ata[1], ata[2])
        let det = m.determinant
        guard abs(det) > 1e-12 * max(1, m.trace * m.trace * m.trace) else { return nil }
        // Cramer's rule: column k replaced by the right-hand side.
        func replaced(_ k: Int) -> Matrix3 {
            func row(_ r: SIMD3<Double>, _ b: Double) -> SIMD3<Double> {
                var r = r
                r[k] = b
                return r
            }
            return Matrix3(rows: row(ata[0], atb.x), row(ata[1], atb.y), row(ata[2], atb.z))
        }
        return SIMD3(replaced(0).determinant, replaced(1).determinant, replaced(2).determinant) / det
    }
}
