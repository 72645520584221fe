import Foundation
import PhotogrammetryCore

/// Detached models and their merging.
///
/// A capture with a wide gap between groups of frames (two arcs of an orbit, a turn the
/// photographer walked too fast) leaves the groups linked by a handful of wide-baseline matches:
/// too few 2D-3D correspondences for PnP to register a frame across the gap, yet the matches
/// form tracks that both sides can triangulate. So the leftover frames are reconstructed on
/// their own, and a detached model joins the main one when a similarity maps its points onto the
/// main model's points of the same tracks, checked by reprojection in both models' images (as
/// COLMAP's reconstruction alignment does). A whole model must agree, which a few wrong matches
/// cannot fake the way they can a single frame's PnP.
extension IncrementalMapper {
    /// Merges one detached model into this one, or two detached models into each other, building
    /// new ones from leftover images as needed. Returns false when no model could be merged.
    func mergeNextDetachedModel() throws -> Bool {
        // Models built earlier may fit now that this one has grown.
        for (n, model) in detachedModels.enumerated() where try merge(model) {
            detachedModels.remove(at: n)
            return true
        }
        // Two pieces of the capture that this model cannot reach may still join each other (a
        // video split twice: the middle stretch links the two ends), and then this one.
        if try mergeDetachedModelsWithEachOther() { return true }
        while let model = try buildDetachedModel() {
            trace("detached model of \(model.numRegistered) images: \(model.registrationOrder.sorted())")
            if try merge(model) { return true }
            detachedModels.append(model)
            if try mergeDetachedModelsWithEachOther() { return true }
        }
        return false
    }

    /// Merges the first pair of detached models that fit, the smaller into the larger, which then
    /// grows again. Returns whether it did.
    func mergeDetachedModelsWithEachOther() throws -> Bool {
        for a in detachedModels.indices {
            for b in detachedModels.indices where a != b
                && (detachedModels[a].numRegistered, -a) > (detachedModels[b].numRegistered, -b) {
                let target = detachedModels[a], source = detachedModels[b]
                guard try target.merge(source) else { continue }
                for i in source.registrationOrder { target.allowedImages?[i] = true }
                detachedModels.remove(at: b)
                try target.grow()
                return true
            }
        }
        return false
    }

    /// Reconstructs the images that no model holds yet, or nil when they make no model.
    func buildDetachedModel() throws -> IncrementalMapper? {
        var allowed = (0..<graph.numImages).map { !isRegistered($0) }
        for model in detachedModels {
            for i in model.registrationOrder { allowed[i] = false }
        }
        guard allowed.filter({ $0 }).count >= 2 else { return nil }
        // It starts among the images no model holds, and may then register a few of this
        // model's own: a shared image aligns two models by its two poses, where the few tracks
        // two stretches of a video share rarely triangulate well enough in both.
        let seeds = allowed
        let foreign = (0..<graph.numImages).map { isRegistered($0) }
        for i in foreign.indices where foreign[i] { allowed[i] = true }
        var blank = blankModel
        // Start from what this model has learned about the cameras.
        for (id, camera) in reconstruction.cameras where cameraCalibrated[id] == true { blank.cameras[id] = camera }
        let model = IncrementalMapper(reconstruction: blank, tracks: tracks, graph: graph, colors: colors,
                                      cameraHasPrior: cameraCalibrated, nearDuplicates: isNearDuplicate,
                                      options: options)
        model.allowedImages = allowed
        model.seedImages = seeds
        model.rotationCheck = rotationCheck
        model.priorPoses = priorPoses
        model.foreignImages = foreign
        guard try model.initialize() else { return nil }
        try model.grow()
        return model
    }

    /// Adds a detached model's images to this model when a similarity maps its points onto
    /// this model's points of the same tracks. Returns whether it did.
    package func merge(_ model: IncrementalMapper) throws -> Bool {
        var shared: [(this: Point3DID, other: Point3DID)] = []
        for t in tracks.tracks.indices {
            if let a = pointOfTrack[t], let b = model.pointOfTrack[t] { shared.append((a, b)) }
        }
        let newImages = model.registrationOrder.filter { !isRegistered($0) }
        trace("merge attempt: model of \(model.registrationOrder.sorted()) shared tracks \(shared.count)")
        let sharedImages = model.registrationOrder.filter { isRegistered($0) }
        guard !newImages.isEmpty, let otherToThis = alignment(of: model, sharedImages: sharedImages)
                ?? (shared.count >= options.mergeMinNumInliers ? alignment(of: model, shared: shared) : nil)
        else { return false }

        for i in newImages {
            let pose = model.reconstruction.images[ImageID(i + 1)]!.camFromWorld!
            reconstruction.images[ImageID(i + 1)]!.camFromWorld = otherToThis.transform(pose)
            let cameraID = reconstruction.images[ImageID(i + 1)]!.cameraID
            if cameraCalibrated[cameraID] != true {
                reconstruction.cameras[cameraID] = model.reconstruction.cameras[cameraID]
                cameraCalibrated[cameraID] = true
            }
            registrationOrder.append(i)
            if model.registeredByMotion.contains(i) { registeredByMotion.insert(i) }
        }
        completeAndRetriangulate()
        try adjustGlobally()
        return true
    }

    /// The similarity from `model`'s frame to this one that the most shared tracks fit, when
    /// enough fit: RANSAC over point triplets, then least squares on the inliers.
    package func alignment(of model: IncrementalMapper, shared: [(this: Point3DID, other: Point3DID)]) -> Similarity3? {
        let here = shared.map { reconstruction.points3D[$0.this]!.position }
        let there = shared.map { model.reconstruction.points3D[$0.other]!.position }
        func inliers(_ s: Similarity3) -> [Int] {
            let back = s.inverse
            return shared.indices.filter { n in
                fits(s.apply(there[n]), point: shared[n].this, in: reconstruction)
                    && fits(back.apply(here[n]), point: shared[n].other, in: model.reconstruction)
            }
        }
        var random = SeededGenerator(seed: options.seed ^ 0x4D45_5247_45)
        var best: [Int] = []
        for _ in 0..<1000 {
            let i = random.next(below: shared.count), j = random.next(below: shared.count)
            let k = random.next(below: shared.count)
            guard i != j, j != k, i != k,
                  let s = Similarity3.leastSquares(from: [there[i], there[j], there[k]], to: [here[i], here[j], here[k]]),
                  s.scale > 0, s.scale.isFinite else { continue }
            let fitting = inliers(s)
            if fitting.count > best.count { best = fitting }
        }
        guard best.count >= 3,
              var fit = Similarity3.leastSquares(from: best.map { there[$0] }, to: best.map { here[$0] }) else { return nil }
        let refined = inliers(fit)
        if refined.count >= best.count,
           let refit = Similarity3.leastSquares(from: refined.map { there[$0] }, to: refined.map { here[$0] }) {
            fit = refit
            best = inliers(refit)
        }
        trace("alignment: \(best.count) of \(shared.count) fit, scale \(fit.scale)")
        guard best.count >= options.mergeMinNumInliers,
              Double(best.count) >= options.mergeMinInlierRatio * Double(shared.count) else { return nil }
        return fit
    }

    /// The similarity from `model`'s frame to this one that the images both hold agree on:
    /// rotation from their orientations, scale and offset from their centres. Nil with fewer
    /// than ``MapperOptions/mergeMinSharedImages`` images, or when one disagrees.
    package func alignment(of model: IncrementalMapper, sharedImages: [Int]) -> Similarity3? {
        guard sharedImages.count >= options.mergeMinSharedImages else { return nil }
        let here = sharedImages.map { reconstruction.images[ImageID($0 + 1)]!.camFromWorld! }
        let there = sharedImages.map { model.reconstruction.images[ImageID($0 + 1)]!.camFromWorld! }
        // Rotation: the mean of the per-image rotations Rᵀ_here R_there, as the sign-aligned
        // mean of their quaternions.
        let quaternions = zip(here, there).map { Rotation.quaternion($0.rotation.transposed * $1.rotation) }
        var sum = SIMD4<Double>.zero
        for q in quaternions { sum += (q * quaternions[0]).sum() < 0 ? -q : q }
        guard (sum * sum).sum() > 0 else { return nil }
        let rotation = Rotation.matrix(quaternion: sum / (sum * sum).sum().squareRoot())
        // Scale and offset: least squares of centres_here = s R centres_there + T.
        let centersHere = here.map(\.centerInWorld), centersThere = there.map { rotation * $0.centerInWorld }
        let n = Double(sharedImages.count)
        let meanHere = centersHere.reduce(.zero, +) / n, meanThere = centersThere.reduce(.zero, +) / n
        var numerator = 0.0, denominator = 0.0, extent = 0.0
        for (a, b) in zip(centersHere, centersThere) {
            numerator += dot(a - meanHere, b - meanThere)
            denominator += dot(b - meanThere, b - meanThere)
            extent = max(extent, length(a - meanHere))
        }
        guard denominator > 0, numerator > 0, extent > 0 else { return nil }
        let scale = numerator / denominator
        let fit = Similarity3(scale: scale, rotation: rotation, translation: meanHere - scale * meanThere)
        // Every shared image must agree: its pose mapped over matches its pose here.
        var worstAngle = 0.0, worstOffset = 0.0
        for (a, b) in zip(here, there) {
            let mapped = fit.transform(b)
            worstAngle = max(worstAngle, Rotation.angleDegrees(between: mapped.rotation, and: a.rotation))
            worstOffset = max(worstOffset, length(mapped.centerInWorld - a.centerInWorld) / extent)
        }
        trace("alignment by \(sharedImages.count) shared images: scale \(scale), worst \(worstAngle)° \(worstOffset) of their extent")
        guard worstAngle <= options.mergeMaxRotationErrorDeg, worstOffset <= options.mergeMaxCenterError else { return nil }
        return fit
    }

    /// Whether `position` reprojects near the observations of `point` in `model`: the median
    /// error over its registered observations within the merging threshold.
    private func fits(_ position: SIMD3<Double>, point: Point3DID, in model: Reconstruction) -> Bool {
        guard let track = model.points3D[point]?.track else { return false }
        var errors: [Double] = []
        for element in track {
            errors.append(model.reprojectionError(of: element, position: position) ?? .infinity)
        }
        return (errors.median() ?? .infinity) <= options.mergeMaxReprojectionErrorPx
    }
}
