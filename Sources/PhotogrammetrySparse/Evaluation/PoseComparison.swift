import Foundation
import PhotogrammetryCore

/// How well an estimated model's camera poses match a reference model's, image by image NAME.
///
/// Two families of measures:
/// - Pair AUC, as in COLMAP's reconstruction benchmark (colmap/colmap,
///   `benchmark/reconstruction/evaluation/utils.py`: `compute_grouped_rel_errors`,
///   `compute_rel_pose_error`, `vec_angular_dist_deg`, `compute_auc`). For every ordered pair
///   (src, tgt) of distinct reference images, `tgt_from_src = cam_from_world[tgt] *
///   cam_from_world[src].inverse()` in both models; the pair's error is the larger of the geodesic
///   angle between the two relative rotations and the angle between the two relative translations
///   (sign-sensitive: `arccos(clip(dot(normalise(a), normalise(b)), -1, 1))`, so a flipped
///   baseline counts 180°). When the reference baseline is below ``minimumBaselineRelative`` times
///   the reference spread, only the rotation counts (COLMAP's `min_proj_center_dist`). A pair with
///   an image that the model lacks counts 180°. AUC at a threshold is the area under the
///   recall–error curve up to the threshold over the threshold, in percent (COLMAP's
///   `compute_auc` with `min_error = 0`, the SuperGlue `pose_auc`). Unlike COLMAP's
///   set-based variant, images of the model absent from the reference are ignored (COLMAP
///   counts their pairs as 180°), and only one model (one component) is scored.
/// - Absolute errors after a 7-DoF similarity alignment of the model's camera centres onto the
///   reference's (see ``Similarity/robustAlignment(from:to:)``): median rotation error, median
///   centre error in reference units, and that error relative to the reference's spread (the
///   median distance of reference centres to their centroid).
public struct PoseComparison: Codable, Equatable, Sendable {
    /// Pair-rotation AUC in percent at 1, 3, 5 and 10 degrees.
    public struct AUC: Codable, Equatable, Sendable {
        public var at1: Double
        public var at3: Double
        public var at5: Double
        public var at10: Double

        package enum CodingKeys: String, CodingKey {
            case at1 = "1", at3 = "3", at5 = "5", at10 = "10"
        }
    }

    /// How many images the reference has.
    public var referenceImages: Int
    /// How many reference images the model registered (matched by name).
    public var registered: Int
    /// How many images the model registered in all (including ones the reference lacks).
    public var modelImages: Int
    /// How many ordered image pairs the AUC is computed over (n (n - 1) for n reference images).
    public var pairs: Int
    /// Pair AUC, percent, 0–100.
    public var auc: AUC
    /// The median pair error in degrees (180 counts for pairs with an unregistered image).
    public var medianPairErrorDeg: Double?
    /// How many registered images the similarity alignment kept as inliers.
    public var alignmentInliers: Int
    /// The scale of the similarity taking model units to reference units.
    public var alignmentScale: Double?
    /// The median, over registered reference images, of the rotation error after alignment.
    public var medianRotationErrorDeg: Double?
    /// The median camera centre error after alignment, in reference units.
    public var medianCenterError: Double?
    /// ``medianCenterError`` over the median distance of the reference centres to their centroid.
    public var medianCenterErrorRelative: Double?

    package enum CodingKeys: String, CodingKey {
        case referenceImages = "reference_images"
        case registered
        case modelImages = "model_images"
        case pairs
        case auc
        case medianPairErrorDeg = "median_pair_error_deg"
        case alignmentInliers = "alignment_inliers"
        case alignmentScale = "alignment_scale"
        case medianRotationErrorDeg = "median_rotation_error_deg"
        case medianCenterError = "median_center_error"
        case medianCenterErrorRelative = "median_center_error_relative"
    }

    /// The AUC thresholds in degrees.
    public static let aucThresholds: [Double] = [1, 3, 5, 10]

    /// Reference baselines shorter than this fraction of the reference spread count rotation only.
    ///
    /// COLMAP uses the ground truth's position accuracy (1 mm for ETH3D, 2 cm for IMC); our
    /// references have arbitrary units, so a small fraction of their extent stands in for it. It
    /// matters on templeRing, whose reference gives templeR0001 and templeR0030 the same pose.
    public static let minimumBaselineRelative = 1e-4

    /// Compares `model` with `reference`, matching images by name.
    public init(model: Reconstruction, reference: Reconstruction) {
        let referenceList = reference.images.values.filter(\.isRegistered).sorted { $0.id < $1.id }
        var modelByName: [String: Rigid3] = [:]
        for image in model.images.values.sorted(by: { $0.id < $1.id }) {
            if let pose = image.camFromWorld, modelByName[image.name] == nil { modelByName[image.name] = pose }
        }
        let referencePoses = referenceList.map { $0.camFromWorld! }
        let estimated: [Rigid3?] = referenceList.map { modelByName[$0.name] }

        referenceImages = referenceList.count
        registered = estimated.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        modelImages = modelByName.count

        let referenceCenters = referencePoses.map(\.centerInWorld)
        let spread = Self.medianDistanceToCentroid(referenceCenters)

        let errors = Self.pairErrors(estimated: estimated, reference: referencePoses,
                                     minimumBaseline: Self.minimumBaselineRelative * spread)
        pairs = errors.count
        let aucs = errors.isEmpty ? [0, 0, 0, 0] : Self.poseAUC(errors: errors, thresholds: Self.aucThresholds)
        auc = AUC(at1: aucs[0], at3: aucs[1], at5: aucs[2], at10: aucs[3])
        medianPairErrorDeg = errors.median()

        // Absolute errors after aligning the registered centres onto the reference's.
        var modelCenters: [SIMD3<Double>] = [], targetCenters: [SIMD3<Double>] = []
        var modelRotations: [Matrix3] = [], targetRotations: [Matrix3] = []
        for (k, pose) in estimated.enumerated() {
            guard let pose else { continue }
            modelCenters.append(pose.centerInWorld)
            targetCenters.append(referenceCenters[k])
            modelRotations.append(pose.rotation)
            targetRotations.append(referencePoses[k].rotation)
        }
        alignmentInliers = 0
        if let (similarity, inliers) = Similarity.robustAlignment(from: modelCenters, to: targetCenters) {
            alignmentInliers = inliers.count
            alignmentScale = similarity.scale
            // world_ref = s R world_model + t, so cam_from_world_ref ≈ cam_from_world_model · Rᵀ.
            let alignedRotationErrors = modelRotations.indices.map {
                Self.rotationAngleDegrees(between: modelRotations[$0] * similarity.rotation.transposed,
                                          and: targetRotations[$0])
            }
            let centerErrors = modelCenters.indices.map {
                length(similarity.apply(modelCenters[$0]) - targetCenters[$0])
            }
            medianRotationErrorDeg = alignedRotationErrors.median()
            medianCenterError = centerErrors.median()
            if let error = medianCenterError, spread > 0 { medianCenterErrorRelative = error / spread }
        }
    }

    /// Pretty-printed JSON with sorted keys (snake_case; missing measures are `null`).
    public func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(referenceImages, forKey: .referenceImages)
        try container.encode(registered, forKey: .registered)
        try container.encode(modelImages, forKey: .modelImages)
        try container.encode(pairs, forKey: .pairs)
        try container.encode(auc, forKey: .auc)
        try container.encode(alignmentInliers, forKey: .alignmentInliers)
        // Optional measures are written as null rather than left out, and never as NaN.
        func put(_ value: Double?, _ key: CodingKeys) throws {
            if let value, value.isFinite { try container.encode(value, forKey: key) } else { try container.encodeNil(forKey: key) }
        }
        try put(medianPairErrorDeg, .medianPairErrorDeg)
        try put(alignmentScale, .alignmentScale)
        try put(medianRotationErrorDeg, .medianRotationErrorDeg)
        try put(medianCenterError, .medianCenterError)
        try put(medianCenterErrorRelative, .medianCenterErrorRelative)
    }

    // MARK: - Pair errors and AUC

    /// The error in degrees of every ordered pair (src, tgt), src ≠ tgt, of reference images.
    ///
    /// - Parameters:
    ///   - estimated: The model's `cam_from_world` per reference image, nil if unregistered.
    ///   - reference: The reference's `cam_from_world`, same order.
    ///   - minimumBaseline: Reference baselines shorter than this measure rotation only.
    public static func pairErrors(estimated: [Rigid3?], reference: [Rigid3], minimumBaseline: Double = 0) -> [Double] {
        precondition(estimated.count == reference.count, "one estimated pose slot per reference image")
        let n = reference.count
        guard n > 1 else { return [] }
        var errors: [Double] = []
        errors.reserveCapacity(n * (n - 1))
        let inverseEstimated = estimated.map { $0?.inverse }
        let inverseReference = reference.map(\.inverse)
        for src in 0..<n {
            for tgt in 0..<n where tgt != src {
                guard let srcPose = inverseEstimated[src], let tgtPose = estimated[tgt] else {
                    errors.append(180)
                    continue
                }
                let est = tgtPose * srcPose
                let ref = reference[tgt] * inverseReference[src]
                let rotationError = rotationAngleDegrees(between: est.rotation, and: ref.rotation)
                var translationError = 0.0
                if length(ref.translation) >= minimumBaseline {
                    translationError = vectorAngleDegrees(est.translation, ref.translation)
                }
                errors.append(max(rotationError, translationError))
            }
        }
        return errors
    }

    /// The angle in degrees between two vectors (90 when either is zero, as COLMAP's
    /// `vec_angular_dist_deg`).
    ///
    /// Computed as atan2(|a × b|, a · b), the same angle as COLMAP's arccos of the clipped cosine
    /// but accurate near 0 and 180 degrees (arccos loses about 1e-6 degrees there).
    public static func vectorAngleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        let u = normalize(a), v = normalize(b)
        if u == .zero || v == .zero { return 90 }
        return atan2(length(cross(u, v)), dot(u, v)) * 180 / .pi
    }

    /// The geodesic angle in degrees of the rotation taking `a` to `b`.
    ///
    /// atan2(sin, cos) of aᵀb: sin from its skew part, cos from its trace. Unlike arccos of the
    /// trace alone it resolves angles near zero (COLMAP uses the quaternion angle for the same reason).
    public static func rotationAngleDegrees(between a: Matrix3, and b: Matrix3) -> Double {
        let m = a.transposed * b
        let skew = SIMD3(m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1])
        return atan2(length(skew) / 2, (m.trace - 1) / 2) * 180 / .pi
    }

    /// The area under the recall–error curve up to each threshold, over the threshold, in percent.
    ///
    /// COLMAP's `compute_auc` (with `min_error = 0`) and SuperGlue's `pose_auc`: sort the errors,
    /// recall of the k-th (0-based) is (k + 1) / n, prepend (0, 0), integrate with trapezoids up to
    /// the threshold (the curve held flat after the last error below it).
    public static func poseAUC(errors: [Double], thresholds: [Double]) -> [Double] {
        precondition(!errors.isEmpty, "no errors to evaluate")
        let sorted = errors.sorted()
        let n = Double(sorted.count)
        let e = [0] + sorted
        let r = [0] + sorted.indices.map { Double($0 + 1) / n }
        return thresholds.map { t in
            // last = searchsorted(e, t, side: right): the number of curve points with error <= t.
            var last = 0
            while last < e.count && e[last] <= t { last += 1 }
            var area = 0.0
            for k in 1..<last { area += (e[k] - e[k - 1]) * (r[k] + r[k - 1]) / 2 }
            area += (t - e[last - 1]) * r[last - 1]
            return area / t * 100
        }
    }

    // MARK: - Helpers

    static func medianDistanceToCentroid(_ points: [SIMD3<Double>]) -> Double {
        guard !points.isEmpty else { return 0 }
        let centroid = points.reduce(SIMD3<Double>.zero, +) / Double(points.count)
        return points.map { length($0 - centroid) }.median() ?? 0
    }
}

/// Compares the COLMAP model (text or binary) in `model` with the one in `reference`, by image name.
///
/// - Parameters:
///   - model: A directory with `cameras.txt`, `images.txt` (and `points3D.txt`), or one whose
///     `sparse/` holds them.
///   - reference: The reference model's directory, same format (ground truth may lack points).
/// - Throws: ``ColmapTextError`` or ``ColmapBinaryError`` when either model cannot be read.
public func comparePoses(model: URL, reference: URL) throws -> PoseComparison {
    // Also accept a reconstruction's OUTPUT directory, whose model is in OUTPUT/sparse.
    let estimated = try Reconstruction.readColmap(from: Reconstruction.colmapModelDirectory(model))
    let truth = try Reconstruction.readColmap(from: Reconstruction.colmapModelDirectory(reference))
    return PoseComparison(model: estimated, reference: truth)
}
