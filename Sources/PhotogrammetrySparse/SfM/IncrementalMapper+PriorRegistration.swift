import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension IncrementalMapper {
    /// Registers an image at its pose prior when neither PnP nor a pair can register anything:
    /// the image that sees the most triangulated points among those with a prior and at least
    /// ``MapperOptions/priorRegistrationMinInliers`` of them.
    ///
    /// ARKit tracks every frame, including those whose features are too few for PnP (30 inliers
    /// from scratch): a plain wall, motion blur, a stretch of foliage. The priors, put in the
    /// model's frame by a robust similarity over the registered images' centres, give such an
    /// image a starting pose; motion-only bundle adjustment against the model's points, pulled
    /// towards the prior by robust costs whose sigmas are the priors' measured disagreement with
    /// the model, refines it; the image joins when enough of its points reproject within the PnP
    /// threshold and its rotation agrees with the view graph. Returns its index, or nil.
    func registerFromPrior() throws -> Int? {
        guard let priorPoses, options.priorRegistrationMinInliers > 0 else { return nil }
        let anchored = registrationOrder.filter { priorPoses[$0] != nil }
        guard anchored.count >= 3 else { return nil }
        let modelPoses = anchored.map { reconstruction.images[ImageID($0 + 1)]!.camFromWorld! }
        guard let (priorsToModel, kept) = Similarity3.robustAlignment(
                from: anchored.map { priorPoses[$0]!.centerInWorld }, to: modelPoses.map(\.centerInWorld)),
              kept.count >= 3 else { return nil }
        // The priors' disagreement with the model (1.4826 x median: a standard deviation),
        // floored so that exact priors still leave the images a say.
        let spread = kept.map { length(modelPoses[$0].centerInWorld - modelPoses[kept[0]].centerInWorld) }.max() ?? 0
        let positionSigma = max(1.4826 * (kept.map {
            length(priorsToModel.apply(priorPoses[anchored[$0]]!.centerInWorld) - modelPoses[$0].centerInWorld)
        }.median() ?? 0), 0.002 * spread, 1e-9)
        let rotationSigmaDeg = max(1.4826 * (kept.map {
            Rotation.angleDegrees(between: priorsToModel.transform(priorPoses[anchored[$0]]!).rotation,
                                  and: modelPoses[$0].rotation)
        }.median() ?? 0), 0.1)

        var candidates: [(count: Int, image: Int)] = []
        for i in 0..<graph.numImages where isAllowed(i) && !isRegistered(i) && priorPoses[i] != nil
            && registrationTrials[i] < options.maxRegistrationTrials {
            let n = numTriangulatedCorrespondences(of: i)
            if n >= options.priorRegistrationMinInliers { candidates.append((n, i)) }
        }
        candidates.sort { ($0.count, -$0.image) > ($1.count, -$1.image) }
        for (_, i) in candidates {
            if try registerAtPrior(i, priorsToModel.transform(priorPoses[i]!), positionSigma: positionSigma,
                                   rotationSigmaDeg: rotationSigmaDeg) {
                return i
            }
            registrationTrials[i] += 1
            correspondencesAtLastFailure[i] = numTriangulatedCorrespondences(of: i)
        }
        return nil
    }

    /// Refines image `i`'s pose from `predicted` (in the model's frame) against its triangulated
    /// correspondences and registers it with its inliers, if there are enough.
    private func registerAtPrior(_ i: Int, _ predicted: Rigid3, positionSigma: Double,
                                 rotationSigmaDeg: Double) throws -> Bool {
        let imageID = ImageID(i + 1)
        let (keypoints, pointIDs, positions) = triangulatedCorrespondences(of: i)
        var trial = reconstruction
        trial.images[imageID]!.camFromWorld = predicted
        for (k, pointID) in zip(keypoints, pointIDs) {
            trial.addObservation(TrackElement(imageID: imageID, point2DIndex: k), to: pointID)
        }
        let priors = BundlePosePriors(camFromWorld: [imageID: predicted], positionSigma: positionSigma,
                                      rotationSigmaRad: rotationSigmaDeg * .pi / 180)
        var bundle = BundleAdjustmentOptions()
        bundle.refineFocalLength = false
        bundle.refinePrincipalPoint = false
        bundle.refineExtraParams = false
        try BundleAdjuster.adjust(&trial, imageIDs: [imageID], fixGauge: false, priors: priors, pointsConstant: true,
                                  options: bundle)
        let refined = trial.images[imageID]!.camFromWorld!
        let camera = self.camera(ofImage: i)
        var inliers: [Bool] = []
        for (k, position) in zip(keypoints, positions) {
            guard let pixel = camera.project(refined.apply(position)) else { inliers.append(false); continue }
            let offset = pixel - keypoint(i, k)
            inliers.append((offset * offset).sum() <= options.absolutePoseMaxErrorPx * options.absolutePoseMaxErrorPx)
        }
        let count = inliers.filter { $0 }.count
        guard count >= options.priorRegistrationMinInliers,
              Double(count) >= options.absolutePoseMinInlierRatio * Double(keypoints.count),
              rotationAgreesWithViewGraph(i, refined.rotation) else {
            trace("register \(i) at its prior FAILED corr \(keypoints.count) inliers \(count)")
            return false
        }
        trace("register \(i) at its prior corr \(keypoints.count) inliers \(count) n=\(numRegistered + 1)")
        reconstruction.images[imageID]!.camFromWorld = refined
        registrationOrder.append(i)
        numRegisteredFromPriors += 1
        for (n, inlier) in inliers.enumerated() where inlier {
            reconstruction.addObservation(TrackElement(imageID: imageID, point2DIndex: keypoints[n]), to: pointIDs[n])
        }
        return true
    }
}
