import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

extension ReconstructionOptions {
    /// What the options make, as one line of words, one per stage of the pipeline's list
    /// (``ReconstructionPipeline/stages(_:)``): `name=` the stage's key after an empty input (its
    /// options and the checkpoint format, hashed), or `name=skipped` when the options leave it
    /// out (`--sparse-only`, `--no-mesh`).
    ///
    /// Made from the stage keys, so whatever changes a stage's output changes this text: a batch
    /// reruns a finished capture whose text differs (from its checkpoints, so only the stages
    /// whose keys changed, or that were skipped, do work). The thread count is in no key:
    /// results do not depend on it (work is stored by index), and a rerun on a machine with more
    /// cores must not redo a batch.
    public var fingerprintText: String {
        ReconstructionPipeline.stages(self).map { "\($0.name)=" + ($0.skip ? "skipped" : $0.key("")) }.joined(separator: " ")
    }

    /// ``fingerprintText`` hashed: "fnv1a64:" and 16 hex digits, what `report.json` records as
    /// `options_fingerprint` and a batch compares to tell a finished capture.
    public var fingerprint: String { "fnv1a64:" + String(format: "%016llx", fingerprintText.fnv1a64) }
}
