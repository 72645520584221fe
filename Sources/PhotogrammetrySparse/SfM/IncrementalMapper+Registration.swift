import PhotogrammetryCore
import PhotogrammetryBridge

extension IncrementalMapper {
    /// Focal lengths (fractions of the longer side) tried for a camera with no estimate yet:
    /// from phones' ultra-wide lenses (13 mm equivalent: 0.36) to a 3× telephoto (about 3.0),
    /// steps of at most 20 % so PnP's inlier count can tell them apart.
    static let focalLadder = [0.36, 0.42, 0.5, 0.6, 0.7, 0.85, 1.0, 1.2, 1.45, 1.75, 2.1, 2.5, 3.0]

    /// Registers the next image: the unregistered one that sees the most triangulated tracks and
    /// whose PnP succeeds. Returns its index, or nil when no image can be added.
    func registerNextImage() throws -> Int? {
        var scored: [(count: Int, image: Int)] = []
        for i in 0..<graph.numImages where isAllowed(i) && !isRegistered(i) {
            let n = numTriangulatedCorrespondences(of: i)
            // An image that failed is tried again once it sees more points than it did then.
            if n > correspondencesAtLastFailure[i] { registrationTrials[i] = 0 }
            if n >= options.absolutePoseMinNumInliers && registrationTrials[i] < options.maxRegistrationTrials {
                scored.append((n, i))
            }
        }
        // Near-duplicates last: they add nothing their twins do not, and would crowd local BA.
        func rank(_ candidate: (count: Int, image: Int)) -> (Int, Int, Int) {
            (isNearDuplicate[candidate.image] ? 0 : 1, candidate.count, -candidate.image)
        }
        scored.sort { rank($0) > rank($1) }
        for (_, i) in scored {
            if try registerImage(i) { return i }
            registrationTrials[i] += 1
            correspondencesAtLastFailure[i] = numTriangulatedCorrespondences(of: i)
        }
        return nil
    }

    /// How many keypoints of image `i` belong to a triangulated track.
    func numTriangulatedCorrespondences(of i: Int) -> Int {
        var n = 0
        for t in tracks.trackOfKeypoint[i] where t >= 0 && pointOfTrack[Int(t)] != nil { n += 1 }
        return n
    }

    /// The keypoints of image `i` whose tracks are triangulated, with their points and positions.
    func triangulatedCorrespondences(of i: Int) -> (keypoints: [Int], pointIDs: [Point3DID], positions: [SIMD3<Double>]) {
        var keypoints: [Int] = [], pointIDs: [Point3DID] = [], positions: [SIMD3<Double>] = []
        for (k, t) in tracks.trackOfKeypoint[i].enumerated() where t >= 0 {
            guard let id = pointOfTrack[Int(t)], let point = reconstruction.points3D[id] else { continue }
            keypoints.append(k)
            pointIDs.append(id)
            positions.append(point.position)
        }
        return (keypoints, pointIDs, positions)
    }

    /// Estimates the pose of image `i` from its 2D-3D correspondences and links its inliers.
    ///
    /// A camera whose focal length is still unknown (no prior, not yet seen) is tried at a ladder
    /// of focal lengths and keeps the one with most inliers; bundle adjustment refines it after.
    func registerImage(_ i: Int) throws -> Bool {
        let imageID = ImageID(i + 1)
        let (keypoints, pointIDs, positions) = triangulatedCorrespondences(of: i)
        guard keypoints.count >= options.absolutePoseMinNumInliers else { return false }

        var camera = self.camera(ofImage: i)
        let calibrated = cameraCalibrated[camera.id] ?? false
        let scale = Double(max(camera.width, camera.height))
        let focals = calibrated ? [camera.params[0]] : Self.focalLadder.map { $0 * scale }
        var best: (pose: Rigid3, inliers: [Bool], count: Int, focal: Double)?
        for focal in focals {
            var trial = camera
            trial.setFocalLength(focal)
            let normalized = keypoints.map { trial.normalized(keypoint(i, $0)) }
            guard let (pose, inliers) = try? estimateAbsolutePose(
                positions, normalized, maxError: options.absolutePoseMaxErrorPx / focal) else { continue }
            let count = inliers.reduce(0) { $0 + ($1 ? 1 : 0) }
            if count > (best?.count ?? 0) { best = (pose, inliers, count, focal) }
        }
        guard let found = best, found.count >= options.absolutePoseMinNumInliers,
              Double(found.count) >= options.absolutePoseMinInlierRatio * Double(keypoints.count) else {
            trace("register \(i) FAILED corr \(keypoints.count) inliers \(best?.count ?? 0)")
            return false
        }
        guard rotationAgreesWithViewGraph(i, found.pose.rotation) else { return false }
        trace("register \(i) corr \(keypoints.count) inliers \(found.count) n=\(numRegistered + 1)")
        if !calibrated {
            camera.setFocalLength(found.focal)
            reconstruction.cameras[camera.id] = camera
            cameraCalibrated[camera.id] = true
        }
        reconstruction.images[imageID]!.camFromWorld = found.pose
        registrationOrder.append(i)
        for (n, inlier) in found.inliers.enumerated() where inlier {
            reconstruction.addObservation(TrackElement(imageID: imageID, point2DIndex: keypoints[n]), to: pointIDs[n])
        }
        return true
    }
}

extension IncrementalMapper {
    /// Whether a rotation found for image `i` turns it against its registered neighbours as the
    /// view graph's averaged rotations do (the median over its pairs within ``rotationCheck``'s
    /// bound; only pairs within one connected part of the voting pairs compare); true when there is
    /// nothing to compare or its camera's focal length is unknown.
    ///
    /// PnP and registration from a pair see only the tracks, and where a symmetric texture
    /// repeats, twins among a true pair's matches make tracks that describe another part of the
    /// wall: PnP then finds, with 50 inliers, a pose turned by 180° from its neighbour's
    /// (pavilion-outer frames 78-80), although every pair of those frames, rotation-averaged,
    /// says 1-3°. Bundle adjustment cannot see the contradiction once the wrong tracks are in.
    func rotationAgreesWithViewGraph(_ i: Int, _ camIFromWorld: Matrix3) -> Bool {
        guard let check = rotationCheck, cameraCalibrated[camera(ofImage: i).id] == true else { return true }
        let (averaged, parts) = check.averaged(cameras: reconstruction.cameras)
        let maxErrorDeg = check.maxErrorDeg
        guard let targetI = averaged[i] else { return true }
        var errors: [Double] = []
        for edge in graph.edges where edge.first == i || edge.second == i {
            let j = edge.first == i ? edge.second : edge.first
            // Another part of the voting pairs has a frame of its own (synthetic-room with
            // priors: 35's pairs to 36-39 do not vote, and compared across parts its true pose
            // misses by 55°).
            guard parts[j] == parts[i], let targetJ = averaged[j], let camJFromWorld = reconstruction.images[ImageID(j + 1)]?.camFromWorld
            else { continue }
            errors.append(Rotation.angleDegrees(between: camIFromWorld * camJFromWorld.rotation.transposed,
                                                and: targetI * targetJ.transposed))
        }
        guard let median = errors.median(), median > maxErrorDeg else { return true }
        trace(String(format: "pose of %d rejected: %.1f° from the view graph's rotations (median of %d pairs)",
                     i, median, errors.count))
        return false
    }
}

extension Camera {
    /// Sets the focal length(s), keeping the aspect ratio of a two-focal model.
    package mutating func setFocalLength(_ focal: Double) {
        if model == .pinhole {
            let aspect = params[1] / params[0]
            params[0] = focal
            params[1] = focal * aspect
        } else {
            params[0] = focal
        }
    }
}
