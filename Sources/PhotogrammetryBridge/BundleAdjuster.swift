import CVision
import PhotogrammetryCore

/// Options of ``BundleAdjuster/adjust(_:imageIDs:constantImageIDs:fixGauge:options:)``.
public struct BundleAdjustmentOptions: Equatable, Sendable {
    /// The robust loss applied to each observation's squared reprojection error.
    public enum Loss: Int32, Sendable {
        case trivial = 0, huber = 1, cauchy = 2, softL1 = 3
    }

    /// Robust loss. Default `.cauchy`.
    public var loss = Loss(rawValue: CoreDefaults.bundle.loss)!
    /// Scale of the loss in pixels (errors beyond it are down-weighted). Default 1.
    public var lossScale = CoreDefaults.bundle.loss_scale_px
    /// Upper bound on Levenberg-Marquardt iterations. Default 100.
    public var maxIterations = Int(CoreDefaults.bundle.max_iterations)
    /// Stop when the relative cost change falls below this. Default 1e-6.
    public var functionTolerance = CoreDefaults.bundle.function_tolerance
    /// Stop when the max-norm of the gradient falls below this. Default 1e-10.
    public var gradientTolerance = CoreDefaults.bundle.gradient_tolerance
    /// Stop when the relative step falls below this. Default 1e-8.
    public var parameterTolerance = CoreDefaults.bundle.parameter_tolerance
    /// Refine focal lengths. Default true.
    public var refineFocalLength = CoreDefaults.bundle.refine_focal_length != 0
    /// Refine principal points. Default false (poorly constrained; COLMAP's default too).
    public var refinePrincipalPoint = CoreDefaults.bundle.refine_principal_point != 0
    /// Refine radial distortion. Default true.
    public var refineExtraParams = CoreDefaults.bundle.refine_extra_params != 0
    /// Threads Ceres may use. Default 1.
    public var numThreads = Int(CoreDefaults.bundle.num_threads)

    public init() {}

    /// Throws ``CVisionError`` (`.invalidArgument`) naming the first value out of range.
    public func validate() throws {
        guard lossScale > 0 else { throw CVisionError.invalidOption("lossScale must be positive") }
        guard maxIterations >= 0 else { throw CVisionError.invalidOption("maxIterations must be >= 0") }
        guard functionTolerance >= 0, gradientTolerance >= 0, parameterTolerance >= 0 else {
            throw CVisionError.invalidOption("tolerances must be >= 0")
        }
        guard numThreads >= 1 else { throw CVisionError.invalidOption("numThreads must be at least 1") }
    }

    var cOptions: cvis_ba_options {
        cvis_ba_options(loss: loss.rawValue, loss_scale_px: lossScale,
                        max_iterations: Int32(clamping: maxIterations),
                        function_tolerance: functionTolerance, gradient_tolerance: gradientTolerance,
                        parameter_tolerance: parameterTolerance,
                        refine_focal_length: refineFocalLength ? 1 : 0,
                        refine_principal_point: refinePrincipalPoint ? 1 : 0,
                        refine_extra_params: refineExtraParams ? 1 : 0,
                        num_threads: Int32(clamping: numThreads))
    }
}

/// What one bundle adjustment did.
public struct BundleAdjustmentSummary: Equatable, Sendable {
    /// RMS reprojection error in pixels before, over observations in front of their camera.
    public var initialRMSError: Double
    /// The same after.
    public var finalRMSError: Double
    /// Levenberg-Marquardt iterations.
    public var iterations: Int
    /// Whether Ceres reports the solution usable.
    public var isUsable: Bool
    /// Wall time of the C call, in seconds.
    public var seconds: Double
    /// Sizes of the problem solved.
    public var numImages: Int, numPoints: Int, numObservations: Int
}

/// Bundle adjustment of a ``Reconstruction`` with Ceres, in place.
public enum BundleAdjuster {
    /// Refines cameras, poses and points of a reconstruction.
    ///
    /// The problem holds every point observed by a variable image, with its observations in the
    /// variable and the constant images (observations in other images are left out). A camera
    /// used only by constant images is held constant.
    ///
    /// - Parameters:
    ///   - reconstruction: refined in place (camera params, variable poses, point positions).
    ///   - imageIDs: the images whose poses are refined; nil means all registered images.
    ///     Unregistered ids are ignored.
    ///   - constantImageIDs: registered images whose observations take part with a fixed pose.
    ///   - fixGauge: when true and there is no constant image, the first variable image (lowest
    ///     id) is held constant and so is the largest translation coordinate of the second,
    ///     removing the similarity gauge freedom.
    ///   - priors: pose priors pulling the free poses (then pass `fixGauge: false`: they fix it).
    ///   - motion: a sequence's motion prior on consecutive frames' centres (triples with an
    ///     image outside the problem are left out).
    ///   - pointsConstant: hold every point still (motion-only adjustment: refines poses
    ///     against a model's points, e.g. registering one image).
    ///   - options: loss, tolerances, what intrinsics to refine, threads.
    /// - Throws: ``CVisionError`` (`.invalidArgument` for bad options or data).
    @discardableResult
    public static func adjust(_ reconstruction: inout Reconstruction, imageIDs: Set<ImageID>? = nil,
                              constantImageIDs: Set<ImageID> = [], fixGauge: Bool = true,
                              priors: BundlePosePriors? = nil, motion: BundleMotionPrior? = nil,
                              pointsConstant: Bool = false,
                              options: BundleAdjustmentOptions = BundleAdjustmentOptions()) throws
        -> BundleAdjustmentSummary {
        try options.validate()
        try priors?.validate()
        let registered = Set(reconstruction.registeredImageIDs)
        let variable = (imageIDs ?? registered).intersection(registered).sorted()
        let variableSet = Set(variable)
        let constant = constantImageIDs.intersection(registered).subtracting(variableSet)

        // Points seen by a variable image, in id order for a reproducible problem.
        var pointIDs = Set<Point3DID>()
        for id in variable {
            for case let pointID? in reconstruction.images[id]!.point3DIDs { pointIDs.insert(pointID) }
        }
        let sortedPointIDs = pointIDs.sorted()

        // Images: the variable ones first, then the constant ones that observe a point.
        var imageIndex = [ImageID: Int32]()
        var problemImages = [ImageID]()
        for id in variable { imageIndex[id] = Int32(problemImages.count); problemImages.append(id) }
        var obsImage = [Int32](), obsPoint = [Int32](), obsXY = [SIMD2<Double>]()
        var points = [Double]()
        points.reserveCapacity(sortedPointIDs.count * 3)
        for (j, pointID) in sortedPointIDs.enumerated() {
            let point = reconstruction.points3D[pointID]!
            points += [point.position.x, point.position.y, point.position.z]
            for element in point.track {
                guard variableSet.contains(element.imageID) || constant.contains(element.imageID) else { continue }
                let index: Int32
                if let i = imageIndex[element.imageID] {
                    index = i
                } else {
                    index = Int32(problemImages.count)
                    imageIndex[element.imageID] = index
                    problemImages.append(element.imageID)
                }
                obsImage.append(index)
                obsPoint.append(Int32(j))
                obsXY.append(reconstruction.images[element.imageID]!.points2D[element.point2DIndex])
            }
        }

        // Motion triples with a free pose; their other frames join held still when no point
        // brought them in (a frame linked to its neighbours by two-view tracks only).
        var triples: [Int32] = []
        for triple in motion?.triples ?? [] {
            let ids = [triple.0, triple.1, triple.2]
            guard ids.contains(where: { variableSet.contains($0) }), ids.allSatisfy({ registered.contains($0) }) else { continue }
            for id in ids where imageIndex[id] == nil {
                imageIndex[id] = Int32(problemImages.count)
                problemImages.append(id)
            }
            triples += ids.map { imageIndex[$0]! }
        }

        // Cameras of the problem's images; constant unless a variable image uses them.
        var cameraIndex = [CameraID: Int32]()
        var problemCameras = [CameraID]()
        var cameraVariable = [Bool]()
        var imageCamera = [Int32](), poses = [Double](), poseMode = [Int32]()
        for id in problemImages {
            let image = reconstruction.images[id]!
            let index: Int32
            if let c = cameraIndex[image.cameraID] {
                index = c
            } else {
                index = Int32(problemCameras.count)
                cameraIndex[image.cameraID] = index
                problemCameras.append(image.cameraID)
                cameraVariable.append(false)
            }
            if variableSet.contains(id) { cameraVariable[Int(index)] = true }
            imageCamera.append(index)
            poses += image.camFromWorld!.angleAxisAndTranslation
            poseMode.append(variableSet.contains(id) ? CVIS_POSE_FREE : CVIS_POSE_CONSTANT)
        }
        if fixGauge && constant.isEmpty && !variable.isEmpty {
            poseMode[0] = CVIS_POSE_CONSTANT
            if variable.count > 1 {
                let t = reconstruction.images[variable[1]]!.camFromWorld!.translation
                let magnitudes = [abs(t.x), abs(t.y), abs(t.z)]
                poseMode[1] = Int32(magnitudes.firstIndex(of: magnitudes.max()!)!)
            }
        }
        let stride = Int(CVIS_CAMERA_PARAMS_STRIDE)
        var cameraModels = [Int32](), cameraParams = [Double](repeating: 0, count: problemCameras.count * stride)
        for (c, id) in problemCameras.enumerated() {
            let camera = reconstruction.cameras[id]!
            cameraModels.append(Int32(camera.model.rawValue))
            for (k, value) in camera.params.enumerated() { cameraParams[c * stride + k] = value }
        }
        let cameraConstant = cameraVariable.map { $0 ? UInt8(0) : 1 }
        var hasPrior = [UInt8](repeating: 0, count: problemImages.count)
        var priorCenters = [Double](repeating: 0, count: problemImages.count * 3)
        var priorRotations = [Double](repeating: 0, count: problemImages.count * 3)
        for (i, id) in problemImages.enumerated() {
            guard let prior = priors?.camFromWorld[id] else { continue }
            hasPrior[i] = 1
            let c = prior.centerInWorld, w = Rotation.angleAxis(prior.rotation)
            for k in 0..<3 { priorCenters[3 * i + k] = c[k]; priorRotations[3 * i + k] = w[k] }
        }

        var cOptions = options.cOptions
        var cSummary = cvis_ba_summary()
        let pointConstant = [UInt8](repeating: pointsConstant ? 1 : 0, count: sortedPointIDs.count)
        try pointConstant.withUnsafeBufferPointer { pointConst in
        try cameraModels.withUnsafeBufferPointer { models in
        try cameraParams.withUnsafeMutableBufferPointer { params in
        try cameraConstant.withUnsafeBufferPointer { camConst in
        try imageCamera.withUnsafeBufferPointer { imgCam in
        try poses.withUnsafeMutableBufferPointer { posesPtr in
        try poseMode.withUnsafeBufferPointer { modes in
        try points.withUnsafeMutableBufferPointer { pointsPtr in
        try obsImage.withUnsafeBufferPointer { oImage in
        try obsPoint.withUnsafeBufferPointer { oPoint in
        try obsXY.withUnsafeBytes { oXY in
            var problem = cvis_ba_problem(
                num_cameras: Int32(problemCameras.count), camera_models: models.baseAddress,
                camera_params: params.baseAddress, camera_constant: camConst.baseAddress,
                num_images: Int32(problemImages.count), image_camera: imgCam.baseAddress,
                image_poses: posesPtr.baseAddress, pose_mode: modes.baseAddress,
                num_points: Int32(sortedPointIDs.count), points3D: pointsPtr.baseAddress,
                point_constant: pointConst.baseAddress, num_observations: Int32(obsImage.count),
                obs_image: oImage.baseAddress, obs_point: oPoint.baseAddress,
                obs_xy: oXY.baseAddress?.assumingMemoryBound(to: Double.self))
            try hasPrior.withUnsafeBufferPointer { has in
            try priorCenters.withUnsafeBufferPointer { centers in
            try priorRotations.withUnsafeBufferPointer { rotations in
            try triples.withUnsafeBufferPointer { triplesPtr in
                let cPriors = priors.map {
                    cvis_ba_pose_priors(has_prior: has.baseAddress, centers: centers.baseAddress,
                                        rotations: rotations.baseAddress, position_sigma: $0.positionSigma,
                                        rotation_sigma_rad: $0.rotationSigmaRad, loss_scale: $0.lossScale)
                }
                let cMotion = triples.isEmpty ? nil : motion.map {
                    cvis_ba_motion_prior(num_triples: Int32(triples.count / 3), triples: triplesPtr.baseAddress,
                                         sigma_fraction: $0.sigmaFraction, loss_scale: $0.lossScale)
                }
                try withOptionalPointer(cPriors) { cPriorsPtr in
                    try withOptionalPointer(cMotion) { cMotionPtr in
                        try check(cvis_bundle_adjust_with_motion(&problem, cPriorsPtr, cMotionPtr, &cOptions, &cSummary))
                    }
                }
            }}}}
        }}}}}}}}}}}

        // Write back what was free: cameras of variable images, poses not held constant (constant
        // ones stay bit-identical, no angle-axis round trip), all points.
        for (c, id) in problemCameras.enumerated() where cameraVariable[c] {
            let count = reconstruction.cameras[id]!.params.count
            reconstruction.cameras[id]!.params = Array(cameraParams[(c * stride)..<(c * stride + count)])
        }
        for (i, id) in problemImages.enumerated() where poseMode[i] != CVIS_POSE_CONSTANT {
            let p = poses[(6 * i)..<(6 * i + 6)].map { $0 }
            reconstruction.images[id]!.camFromWorld =
                Rigid3(angleAxis: SIMD3(p[0], p[1], p[2]), translation: SIMD3(p[3], p[4], p[5]))
        }
        for (j, id) in sortedPointIDs.enumerated() where !pointsConstant {
            reconstruction.points3D[id]!.position = SIMD3(points[3 * j], points[3 * j + 1], points[3 * j + 2])
        }
        return BundleAdjustmentSummary(
            initialRMSError: cSummary.initial_rms_px, finalRMSError: cSummary.final_rms_px,
            iterations: Int(cSummary.iterations), isUsable: cSummary.usable != 0,
            seconds: cSummary.seconds, numImages: problemImages.count,
            numPoints: sortedPointIDs.count, numObservations: obsImage.count)
    }
}

/// Calls `body` with a pointer to a copy of `value`, or with nil.
private func withOptionalPointer<T, R>(_ value: T?, _ body: (UnsafePointer<T>?) throws -> R) rethrows -> R {
    guard var value else { return try body(nil) }
    return try withUnsafePointer(to: &value) { try body($0) }
}
