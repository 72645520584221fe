import Foundation
import PhotogrammetryCore

/// Each stage's typical share of a run's wall time, per detail level: the weights the whole
/// run's ETA starts from (``RunPlan``), in percent of a run that has every stage.
///
/// Measured on this project's 2-core machine from the stage seconds of report.json
/// (docs/outputs.md, "Progress", says the same):
/// - preview: templeRing-12 (12 images, 22 s) and a 48-image orbit (197 s), averaged;
/// - medium: templeRing-12 (140 s, with other work on the cores), averaged with the orbit's mean
///   of preview and full (the orbit at medium was not measured);
/// - full and raw: the 48-image orbit at full (378 s);
/// - reduced: halfway between preview and medium.
///
/// The shares only start the estimate: the ETA is the run's own elapsed time over the share
/// done, so a machine twice as slow still gets a right ETA, and a capture whose dense stage weighs
/// more than the table says gets one that corrects itself as the stages finish. Stages that
/// repeat another on fewer images (the passes 5-9, the unmasked rerun) take that stage's share.
enum StageCostShares {
    /// Percent per stage at each measured level; a stage not listed weighs ``smallShare``.
    static let measured: [DetailLevel: [String: Double]] = [
        .preview: ["segmentation": 0.9, "features": 3.1, "matching": 0.7, "sparse": 8.3, "dense": 46, "surface": 38,
                   "model": 2.3, "report": 0.6],
        .medium: ["segmentation": 0.4, "features": 2.1, "matching": 2.0, "sparse": 4.2, "dense": 35.5, "surface": 52.9,
                  "model": 2.4, "report": 0.6],
        .full: ["segmentation": 0.5, "features": 2.7, "matching": 6.4, "sparse": 6.2, "dense": 52.3, "surface": 30,
                "model": 1.8, "report": 0.5],
    ]

    /// The share of a stage that takes well under a second on any capture (ingest, diagnostics,
    /// metric scale, upright, export, rematching, mask check).
    static let smallShare = 0.1

    /// The stages whose share is another's: they run that stage again on a part of the images.
    static let sameAs = ["sparse-rematched": "sparse", "finer-features": "features", "finer-matching": "matching",
                         "sparse-finer": "sparse"]

    /// The share of `stage` at `level`, in percent.
    static func share(of stage: String, at level: DetailLevel) -> Double {
        var name = stage
        if name.hasSuffix(unmaskedRerunSuffix) { name.removeLast(unmaskedRerunSuffix.count) }
        name = sameAs[name] ?? name
        switch level {
        case .reduced:
            return (share(of: name, at: .preview) + share(of: name, at: .medium)) / 2
        case .raw:
            return share(of: name, at: .full)
        default:
            return measured[level]?[name] ?? smallShare
        }
    }
}
