import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Options of ``PriorAlignment/align(_:priors:options:bundle:)``.
public struct PriorAlignmentOptions: Sendable {
    /// Registered images with priors a model needs to be put in the priors' frame. Default 4:
    /// three fix a similarity, the fourth checks it.
    public var minCameras = 4
    /// Floor of the position sigma, as a share of the prior centres' spread (median distance
    /// from their centroid): exact priors would otherwise pin every camera. Default 0.002.
    public var minPositionSigmaFraction = 0.002
    /// Floor of the rotation sigma in degrees. Default 0.1.
    public var minRotationSigmaDeg = 0.1

    public init() {}

    /// Throws when a value is out of range.
    public func validate() throws {
        guard minCameras >= 3, minPositionSigmaFraction > 0, minRotationSigmaDeg > 0 else {
            throw PipelineError.invalidOption("prior alignment: minCameras >= 3, sigma floors > 0")
        }
    }
}

/// A model put into the pose priors' frame: a robust similarity from its camera centres to the
/// priors' (so the model is in the priors' units, metres for ARKit), then bundle adjustment
/// with robust prior costs on every camera the similarity kept.
///
/// The sigmas of those costs are measured, not assumed: the kept cameras' median centre and
/// rotation disagreement after the similarity over 1.538 (a 3-D Gaussian's median radius in
/// sigmas per axis), floored by
/// ``PriorAlignmentOptions``. So priors as noisy as ARKit's hold the frame and the scale while
/// the images decide the shape, and a camera the similarity rejected (a jump in the priors)
/// takes no prior cost at all.
public struct PriorAlignment: Codable, Sendable, Equatable {
    /// Priors' units (metres) per unit of the model as SfM made it: the least-squares scale
    /// from the SfM model's camera centres to the final ones.
    public var scale: Double
    /// Half the 16-84 % range of the ratios of camera-pair distances (priors over the SfM
    /// model), over ``scale``: how much one pair's scale scatters (noise and drift of the priors).
    public var spread: Double
    /// Registered cameras with a prior.
    public var cameras: Int
    /// Those the robust similarity kept (they take prior costs).
    public var inliers: Int
    /// The position sigma of the prior costs, in the priors' units.
    public var positionSigma: Double
    /// The rotation sigma of the prior costs, in degrees.
    public var rotationSigmaDeg: Double
    /// Mean distance of the kept cameras' final centres from their priors, in the priors' units.
    public var meanCenterOffset: Double

    /// Puts `model` into the frame of `priors` (by image id) and refines it with them; nil,
    /// leaving the model as it is, when fewer than ``PriorAlignmentOptions/minCameras``
    /// registered images have priors or their centres do not fix a similarity.
    /// - Parameter bundle: reprojection loss, intrinsics to refine, threads.
    public static func align(_ model: inout Reconstruction, priors: [ImageID: Rigid3], options: PriorAlignmentOptions,
                             bundle: BundleAdjustmentOptions) throws -> PriorAlignment? {
        try options.validate()
        let ids = model.registeredImageIDs.filter { priors[$0] != nil }.sorted()
        guard ids.count >= options.minCameras else { return nil }
        let sfmCentres = ids.map { model.images[$0]!.camFromWorld!.centerInWorld }
        let priorCentres = ids.map { priors[$0]!.centerInWorld }
        guard let (rough, kept) = Similarity3.robustAlignment(from: sfmCentres, to: priorCentres), kept.count >= 3 else { return nil }
        let keptIDs = kept.map { ids[$0] }
        // The camera axes tie the rotation down where the centres alone do not (a straight walk):
        // each kept camera adds its centre plus its x and z axes at the scene's scale.
        let reach = max(priorCentres.map { length($0 - priorCentres.reduce(.zero, +) / Double(ids.count)) }.median() ?? 0, 1e-12)
        var source: [SIMD3<Double>] = [], target: [SIMD3<Double>] = []
        for k in kept {
            let mine = model.images[ids[k]]!.camFromWorld!, theirs = priors[ids[k]]!
            source += [sfmCentres[k], sfmCentres[k] + reach / rough.scale * mine.rotation.rows.0,
                       sfmCentres[k] + reach / rough.scale * mine.rotation.rows.2]
            target += [priorCentres[k], priorCentres[k] + reach * theirs.rotation.rows.0,
                       priorCentres[k] + reach * theirs.rotation.rows.2]
        }
        let similarity = Similarity3.leastSquares(from: source, to: target) ?? rough
        model.transform(by: similarity)

        // Sigmas from the kept cameras' disagreement with their priors after the similarity.
        let offsets = keptIDs.map { length(model.images[$0]!.camFromWorld!.centerInWorld - priors[$0]!.centerInWorld) }
        let angles = keptIDs.map { Rotation.angleDegrees(between: model.images[$0]!.camFromWorld!.rotation, and: priors[$0]!.rotation) }
        let positionSigma = max((offsets.median() ?? 0) / 1.538, options.minPositionSigmaFraction * reach)
        let rotationSigmaDeg = max((angles.median() ?? 0) / 1.538, options.minRotationSigmaDeg)
        let bundlePriors = BundlePosePriors(camFromWorld: Dictionary(uniqueKeysWithValues: keptIDs.map { ($0, priors[$0]!) }),
                                            positionSigma: positionSigma, rotationSigmaRad: rotationSigmaDeg * .pi / 180)
        let summary = try BundleAdjuster.adjust(&model, imageIDs: nil, constantImageIDs: [], fixGauge: false,
                                                priors: bundlePriors, options: bundle)
        trace("prior BA \(summary.traceDescription)")

        let finalCentres = ids.map { model.images[$0]!.camFromWorld!.centerInWorld }
        let scale = Similarity3.leastSquares(from: sfmCentres, to: finalCentres)?.scale ?? similarity.scale
        let meanOffset = keptIDs.map { length(model.images[$0]!.camFromWorld!.centerInWorld - priors[$0]!.centerInWorld) }
            .reduce(0, +) / Double(keptIDs.count)
        return PriorAlignment(scale: scale, spread: pairRatioSpread(kept.map { sfmCentres[$0] }, kept.map { priorCentres[$0] },
                                                                    scale: scale, minDistance: 4 * positionSigma),
                              cameras: ids.count, inliers: kept.count, positionSigma: positionSigma,
                              rotationSigmaDeg: rotationSigmaDeg, meanCenterOffset: meanOffset)
    }

    /// Half the 16-84 % range of the pair-distance ratios (target over source) over `scale`,
    /// from the pairs whose target distance is at least `minDistance` (closer pairs' ratios are
    /// the priors' noise, not their scale); 0 with fewer than two such pairs.
    static func pairRatioSpread(_ source: [SIMD3<Double>], _ target: [SIMD3<Double>], scale: Double, minDistance: Double) -> Double {
        var ratios: [Double] = []
        for i in source.indices {
            for j in source.indices where j > i {
                let d = length(target[i] - target[j]), e = length(source[i] - source[j])
                if d >= minDistance, e > 0 { ratios.append(d / e) }
            }
        }
        guard ratios.count >= 2 else { return 0 }
        ratios.sort()
        func quantile(_ q: Double) -> Double { ratios[min(ratios.count - 1, Int(q * Double(ratios.count - 1) + 0.5))] }
        return (quantile(0.84) - quantile(0.16)) / 2 / scale
    }
}

extension Reconstruction {
    /// Maps the model's world by `similarity`: points, and every pose so that projections stay
    /// the same (``Similarity3/transform(_:)``).
    public mutating func transform(by similarity: Similarity3) {
        for (id, image) in images {
            guard let pose = image.camFromWorld else { continue }
            images[id]?.camFromWorld = similarity.transform(pose)
        }
        for (id, point) in points3D { points3D[id]?.position = similarity.apply(point.position) }
    }
}
