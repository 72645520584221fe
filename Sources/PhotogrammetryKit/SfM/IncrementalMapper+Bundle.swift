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
        var ba = bundleOptions(refineIntrinsics: false)
        ba.maxIterations = 25
        _ = try BundleAdjuster.adjust(&reconstruction, imageIDs: variable, constantImageIDs: constant,
                                      fixGauge: constant.isEmpty, options: ba)
        var touched = Set<Point3DID>()
        for id in variable {
            for case let p? in reconstruction.images[id]!.point3DIDs { touched.insert(p) }
        }
        filterObservations(ofPoints: touched.sorted())
    }

    /// Refines every registered image and point, and the intrinsics once enough images constrain them.
    func adjustGlobally(filter: Bool = true) throws {
        let refine = options.refineIntrinsics && numRegistered >= options.refineIntrinsicsMinImages
        _ = try BundleAdjuster.adjust(&reconstruction, imageIDs: nil, constantImageIDs: [],
                                      fixGauge: true, options: bundleOptions(refineIntrinsics: refine))
        if filter { filterObservations(ofPoints: reconstruction.points3D.keys.sorted()) }
        numRegisteredAtLastGlobalBundle = numRegistered
    }

    /// Bundle adjustment options shared by local and global refinement.
    func bundleOptions(refineIntrinsics: Bool) -> BundleAdjustmentOptions {
        var ba = BundleAdjustmentOptions()
        ba.loss = .cauchy
        ba.lossScale = options.bundleLossScalePx
        ba.refineFocalLength = refineIntrinsics
        ba.refineExtraParams = refineIntrinsics
        ba.refinePrincipalPoint = false
        ba.numThreads = options.numThreads
        return ba
    }
}
