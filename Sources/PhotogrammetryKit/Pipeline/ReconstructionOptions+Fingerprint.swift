import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension ReconstructionOptions {
    /// The options that decide what a run makes, as one line of `name=value` words: those the
    /// command line sets (`--detail`, `--sparse-only`, `--room`, `--mask`, `--intrinsics`,
    /// `--seed`, `--camera-model`, `--pairs`, `--neighbours`, `--keyframes`, `--max-megapixels`),
    /// the feature and rejection settings behind checkpoints, and the program's version.
    ///
    /// The thread count is not among them: results do not depend on it (work is stored by index),
    /// and a rerun on a machine with more cores must not redo a batch. Two runs with the same
    /// text asked for the same outputs.
    public var fingerprintText: String {
        let mask: String
        switch self.mask {
        case .automatic: mask = "auto"
        case .disabled: mask = "none"
        case .given(.directory(let folder)): mask = "dir:" + folder.standardizedFileURL.path
        case .given(let source): mask = source.cacheKey
        }
        // Automatic priors add no word, so runs without `--priors` keep their fingerprints.
        let priors: [String]
        switch self.priors {
        case .automatic: priors = []
        case .disabled: priors = ["priors=none"]
        case .given(let url): priors = ["priors=" + url.standardizedFileURL.path]
        }
        // The default decode limit adds no word either: the images it admits or refuses enter the
        // content digest, and finished captures keep their fingerprints.
        let limits = decodeLimits == DecodeLimits() ? [] : ["max_megapixels=\(DecodeLimits.megapixelsText(decodeLimits.maxPixels))"]
        let intrinsics = fixedIntrinsics.map { "\($0.fx),\($0.fy),\($0.cx),\($0.cy)" } ?? "none"
        return ["detail=\(detail.rawValue)", "sparse_only=\(sparseOnly)", "room=\(room)", "mask=\(mask)",
                "intrinsics=\(intrinsics)", "seed=\(seed)", "camera_model=\(cameraModel?.name ?? "auto")",
                "pairs=\(matching.pairs.strategy.rawValue)", "neighbours=\(matching.pairs.retrievalNeighbours)",
                "keyframes=\(keyframes.target)",
                "blur_floor=\(blurFloorFraction)", "blank_contrast=\(blankContrast)", "sift=\(sift.cacheKey)",
                "version=\(Report().version)"].joined(separator: " ") + (priors + limits).map { " " + $0 }.joined()
    }

    /// ``fingerprintText`` hashed: "fnv1a64:" and 16 hex digits, what `report.json` records as
    /// `options_fingerprint` and a batch compares to tell a finished capture.
    public var fingerprint: String { "fnv1a64:" + String(format: "%016llx", fingerprintText.fnv1a64) }
}
