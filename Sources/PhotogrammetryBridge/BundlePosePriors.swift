import CVision
import PhotogrammetryCore

/// Pose priors for ``BundleAdjuster/adjust(_:imageIDs:constantImageIDs:fixGauge:priors:options:)``:
/// per image a camera centre and a rotation that its free pose is pulled towards, through robust
/// (Cauchy) costs in units of their sigmas.
///
/// With priors on enough images the priors fix the gauge (frame and scale) and no image needs
/// to be held still; the images' reprojection errors still decide the shape, so a prior that
/// disagrees with them (ARKit drift) is corrected rather than obeyed.
public struct BundlePosePriors: Sendable {
    /// Prior world-to-camera poses; images without one take no prior cost.
    public var camFromWorld: [ImageID: Rigid3]
    /// A centre coordinate's standard deviation, in world units.
    public var positionSigma: Double
    /// A rotation's standard deviation in radians; 0 = no rotation cost.
    public var rotationSigmaRad: Double
    /// Scale of the Cauchy loss, in sigmas. Default 2.
    public var lossScale = CoreDefaults.posePriors.loss_scale

    public init(camFromWorld: [ImageID: Rigid3], positionSigma: Double, rotationSigmaRad: Double) {
        self.camFromWorld = camFromWorld
        self.positionSigma = positionSigma
        self.rotationSigmaRad = rotationSigmaRad
    }

    /// Throws ``CVisionError`` naming the first value out of range.
    public func validate() throws {
        guard positionSigma > 0, positionSigma.isFinite else { throw CVisionError.invalidOption("positionSigma must be positive") }
        guard rotationSigmaRad >= 0, rotationSigmaRad.isFinite else { throw CVisionError.invalidOption("rotationSigmaRad must be >= 0") }
        guard lossScale > 0 else { throw CVisionError.invalidOption("lossScale must be positive") }
    }
}

/// A sequence's motion prior for bundle adjustment: consecutive frames keep their velocity
/// (``cvis_ba_motion_prior``).
public struct BundleMotionPrior: Sendable {
    /// Consecutive frames (a, b, c) in sequence order.
    public var triples: [(ImageID, ImageID, ImageID)]
    /// A centre's second difference of this fraction of the triple's step costs one sigma.
    public var sigmaFraction: Double
    /// Cauchy scale, in sigmas.
    public var lossScale: Double

    public init(triples: [(ImageID, ImageID, ImageID)], sigmaFraction: Double, lossScale: Double) {
        self.triples = triples
        self.sigmaFraction = sigmaFraction
        self.lossScale = lossScale
    }
}
