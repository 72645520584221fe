import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension IncrementalMapper {
    /// Refines image `i`, its best-connected registered neighbours and the points they see;
    /// other images that see those points hold still.
    func adjustLocally(around i: Int) throws {
        let imageID = ImageID(i + 1)
        var shared: [ImageID: Int] = [:]
        var pointIDs = Set<Point3DID>()
        for case let id? in reconstruction.images[imageID]!.point3DIDs {
            pointIDs.insert(id)
            for element in reconstruction.points3D[id]!.track where element.imageID != imageID {
                shared[element.imageID, default: 0] += 1
            }
        }
        let neighbours = shared.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .prefix(options.localBundleNumImages).map(\.key)
        let variable = Set([imageID] + neighbours)
        var constant = Set<ImageID>()
        for id in variable {
            for case let p? in reconstruction.images[id]!.point3DIDs {
                for element in reconstruction.points3D[p]!.track where !variable.contains(element.imageID) {
                    constant.insert(element.imageID)
                }
            }
        }
        var ba = options.bundleOptions(refineIntrinsics: false)
        ba.maxIterations = options.localBundleMaxIterations
        ba.functionTolerance = options.localBundleFunctionTolerance
        let summary = try BundleAdjuster.adjust(&reconstruction, imageIDs: variable, constantImageIDs: constant,
                                                fixGauge: constant.isEmpty, motion: motionPrior(), options: ba)
        trace("local BA \(summary.traceDescription)")
        var touched = Set<Point3DID>()
        for id in variable {
            for case let p? in reconstruction.images[id]!.point3DIDs { touched.insert(p) }
        }
        filterObservations(ofPoints: touched.sorted())
    }

    /// Refines every registered image and point, and the intrinsics once enough images constrain them;
    /// `final`: the last pass, at ``MapperOptions/finalBundleLossScalePx`` and without filtering
    /// after it.
    func adjustGlobally(final: Bool = false) throws {
        // A capture smaller than the threshold refines them once every image is in: otherwise
        // a few large views would keep the focal length of the first guess to the end.
        let refine = options.refineIntrinsics
            && numRegistered >= min(options.refineIntrinsicsMinImages, max(3, graph.numImages))
        var ba = final ? options.finalBundleOptions(refineIntrinsics: refine) : options.bundleOptions(refineIntrinsics: refine)
        ba.refinePrincipalPoint = ba.refineFocalLength && shouldRefinePrincipalPoint()
        let summary = try BundleAdjuster.adjust(&reconstruction, imageIDs: nil, constantImageIDs: [],
                                                fixGauge: true, motion: motionPrior(), options: ba)
        trace("global BA \(summary.traceDescription)")
        if ba.refinePrincipalPoint && !principalPointsArePlausible() {
            // Undo the run-off and settle the model around the centred principal point again.
            ba.refinePrincipalPoint = false
            _ = try BundleAdjuster.adjust(&reconstruction, imageIDs: nil, constantImageIDs: [],
                                          fixGauge: true, motion: motionPrior(), options: ba)
        }
        if !final { filterObservations(ofPoints: reconstruction.points3D.keys.sorted()) }
        numRegisteredAtLastGlobalBundle = numRegistered
    }

    /// The motion prior over the consecutive registered frames around each frame registered by
    /// motion (every three that hold one); nil when there are none.
    ///
    /// Only there: photos taken in order are not always taken at an even pace along a smooth
    /// path (templeRing's names run around its ring with jumps), and held everywhere the prior
    /// pulls such frames into line and ruins their poses (docs/benchmarks.md).
    func motionPrior() -> BundleMotionPrior? {
        guard !registeredByMotion.isEmpty, graph.numImages >= 3 else { return nil }
        var middles = Set<Int>()
        for m in registeredByMotion { middles.formUnion([m - 1, m, m + 1]) }
        let triples = middles.sorted()
            .filter { $0 >= 1 && $0 < graph.numImages - 1 && isRegistered($0 - 1) && isRegistered($0) && isRegistered($0 + 1) }
            .map { (ImageID($0), ImageID($0 + 1), ImageID($0 + 2)) }
        return triples.isEmpty ? nil : BundleMotionPrior(triples: triples, sigmaFraction: options.motionPriorSigmaFraction,
                                                        lossScale: 1)
    }
}

extension IncrementalMapper {
    /// Whether the principal point may move: the observations must reach far enough from the
    /// centre (``MapperOptions/refinePrincipalPointMinSpread``), every camera in use must be seen
    /// by enough registered images, and no earlier refinement may have run off.
    ///
    /// COLMAP holds it fixed at the image centre. Real lenses sit off-centre by a few per cent of
    /// the image (templeRing: 18 px of 640), and with a fixed centre focal length and distortion
    /// soak up the error and tilt every pose; with many views of one camera the principal point
    /// is well determined, so it is freed then.
    func shouldRefinePrincipalPoint() -> Bool {
        guard options.refinePrincipalPointMinImages > 0,
              observationSpread() >= options.refinePrincipalPointMinSpread else { return false }
        var registeredPerCamera: [CameraID: Int] = [:], capturedPerCamera: [CameraID: Int] = [:]
        for image in reconstruction.images.values { capturedPerCamera[image.cameraID, default: 0] += 1 }
        for i in registrationOrder {
            registeredPerCamera[reconstruction.images[ImageID(i + 1)]!.cameraID, default: 0] += 1
        }
        // A capture of few large views frees it once all of them are in (at least five): each
        // view sees the whole scene, and a centre that is off by 1 % tilts every pose more than
        // a freed one wanders (docs/benchmarks.md).
        return registeredPerCamera.allSatisfy { camera, registered in
            let captured = capturedPerCamera[camera] ?? 0
            let required = max(5, min(options.refinePrincipalPointMinImages, captured)) * (principalPointRunOffs + 1)
            return registered >= required
        }
    }

    /// Puts a principal point that left the central fifth of the image back at the centre and
    /// returns false: such a jump means the views do not constrain it yet, so the next attempt
    /// waits for more images.
    func principalPointsArePlausible() -> Bool {
        var plausible = true
        for (id, camera) in reconstruction.cameras {
            let c = camera.principalPoint
            let w = Double(camera.width), h = Double(camera.height)
            if abs(c.x - w / 2) > 0.1 * w || abs(c.y - h / 2) > 0.1 * h {
                var reset = camera
                reset.setPrincipalPoint(SIMD2(w / 2, h / 2))
                reconstruction.cameras[id] = reset
                plausible = false
            }
        }
        if !plausible { principalPointRunOffs += 1 }
        return plausible
    }
}

extension BundleAdjustmentSummary {
    /// Size, iterations and time of one adjustment, for the mapper's narration.
    var traceDescription: String {
        "images \(numImages) points \(numPoints) obs \(numObservations) iterations \(iterations) "
            + "rms \(initialRMSError) -> \(finalRMSError) seconds \(seconds)"
    }
}

extension Camera {
    /// Sets the principal point.
    mutating func setPrincipalPoint(_ c: SIMD2<Double>) {
        let offset = model == .pinhole ? 2 : 1
        params[offset] = c.x
        params[offset + 1] = c.y
    }
}
