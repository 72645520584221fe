import PhotogrammetryCore

extension IncrementalMapper {
    /// Triangulates every untriangulated track through image `i` that at least two registered
    /// images observe.
    func triangulateTracks(seenBy i: Int) {
        var candidates: [Int] = []
        for t in tracks.trackOfKeypoint[i] where t >= 0 && pointOfTrack[Int(t)] == nil {
            candidates.append(Int(t))
        }
        triangulate(tracks: candidates)
    }

    /// Triangulates the given tracks from their registered observations, in one batch.
    package func triangulate(tracks candidates: [Int]) {
        var poseIndex: [Int: Int] = [:]
        var poses: [Rigid3] = []
        var batch: [[(pose: Int, point: SIMD2<Double>)]] = []
        var batchTracks: [Int] = [], batchObservations: [[SIMD2<Int32>]] = []
        var focalSum = 0.0
        for t in candidates {
            var observations: [SIMD2<Int32>] = []
            var rays: [(pose: Int, point: SIMD2<Double>)] = []
            for o in tracks.tracks[t] {
                let image = Int(o.x)
                guard let pose = reconstruction.images[ImageID(image + 1)]!.camFromWorld else { continue }
                // A keypoint already linked to another point stays with it.
                if reconstruction.images[ImageID(image + 1)]!.point3DIDs[Int(o.y)] != nil { continue }
                let index: Int
                if let known = poseIndex[image] {
                    index = known
                } else {
                    index = poses.count
                    poseIndex[image] = index
                    poses.append(pose)
                }
                let camera = camera(ofImage: image)
                focalSum += camera.meanFocalLength
                rays.append((index, camera.normalized(keypoint(image, Int(o.y)))))
                observations.append(o)
            }
            guard rays.count >= 2 else { continue }
            batch.append(rays)
            batchTracks.append(t)
            batchObservations.append(observations)
        }
        guard !batch.isEmpty else { return }
        let meanFocal = focalSum / Double(batch.reduce(0) { $0 + $1.count })
        let results = triangulateBatch(batch, poses: poses, maxError: options.triangulationMaxErrorPx / meanFocal)
        for (n, result) in results.enumerated() {
            guard let position = result.point else { continue }
            let kept = zip(batchObservations[n], result.inliers).filter(\.1).map(\.0)
            guard kept.count >= 2 else { continue }
            addPoint(track: batchTracks[n], position: position, observations: kept)
        }
    }

    /// Adds registered observations that fit an existing point (track completion) and
    /// triangulates every track that is still without a point (retriangulation).
    func completeAndRetriangulate() {
        let threshold = options.triangulationMaxErrorPx
        var untriangulated: [Int] = []
        for t in tracks.tracks.indices {
            guard let id = pointOfTrack[t] else { untriangulated.append(t); continue }
            guard let position = reconstruction.points3D[id]?.position else { continue }
            for o in tracks.tracks[t] {
                let imageID = ImageID(Int(o.x) + 1)
                guard let image = reconstruction.images[imageID], image.isRegistered,
                      image.point3DIDs[Int(o.y)] == nil else { continue }
                let element = TrackElement(imageID: imageID, point2DIndex: Int(o.y))
                if let error = reconstruction.reprojectionError(of: element, position: position), error < threshold {
                    reconstruction.addObservation(element, to: id)
                }
            }
        }
        triangulate(tracks: untriangulated)
    }
}
