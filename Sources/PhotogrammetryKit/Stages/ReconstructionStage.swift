import Foundation
import PhotogrammetryCore

/// One stage of the pipeline: its options, a run over the shared context and the scene, one output.
///
/// The pipeline calls ``run(_:_:)`` to compute the output from what earlier stages put into the
/// scene, then ``apply(_:to:_:)`` to put it into the scene; a stage whose output is saved
/// (``CheckpointedStage``) gets `apply` with the output loaded from its checkpoint instead of a
/// run, so later stages see the same inputs whether the stage ran or was resumed.
public protocol ReconstructionStage {
    associatedtype Options: StageOptions
    associatedtype Output

    /// The stage's name in progress lines, `report.json`'s `stages` and checkpoint files.
    static var name: String { get }
    /// What decides the stage's output, besides its inputs.
    var options: Options { get }

    /// Computes the output from the scene (which it reads, and does not change).
    func run(_ scene: ReconstructionScene, _ context: StageContext) throws -> Output
    /// Puts an output into the scene (and its figures into the report); throws when a loaded
    /// output cannot be used (a file it names is gone), and the stage then runs instead.
    func apply(_ output: Output, to scene: ReconstructionScene, _ context: StageContext) throws
    /// The key later stages chain from, once the output is applied; `key` itself by default.
    /// (Ingest adds the contents of the images it found.)
    func outputKey(_ key: String, _ scene: ReconstructionScene) -> String
    /// The contents of files the stage reads that no earlier stage keyed on, hashed (metric
    /// scale: the capture's depth PNGs); "" (the default) when there are none, and the key is
    /// then ``key(after:)`` alone.
    func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String
    /// Whether the scene gives the stage anything to do (true by default); one that has nothing
    /// (a second matching pass when the model holds every image) is recorded as skipped.
    /// Decided by what earlier stages found, so the same inputs skip the same stages.
    func hasWork(_ scene: ReconstructionScene) -> Bool
    /// Whether `report.json`'s `stages` lists the stage when it is skipped (true by default):
    /// the reruns without automatic masks are listed only when they run.
    static var listedWhenSkipped: Bool { get }
}

extension ReconstructionStage {
    public func outputKey(_ key: String, _ scene: ReconstructionScene) -> String { key }
    public func inputDigest(_ scene: ReconstructionScene, _ context: StageContext) -> String { "" }
    public func hasWork(_ scene: ReconstructionScene) -> Bool { true }
    public static var listedWhenSkipped: Bool { true }

    /// The key of this stage's output given what it reads (``inputDigest(_:_:)``): ``key(after:)``
    /// of the input key, with the digest hashed into it when there is one.
    public func key(after inputKey: String, digest: String) -> String {
        guard !digest.isEmpty else { return key(after: inputKey) }
        var hash = StableHash()
        hash.add(inputKey)
        hash.add(digest)
        return key(after: hash.hex)
    }

    /// The key of this stage's output: its name, its options and the key of its inputs, hashed.
    ///
    /// Chained: a changed option changes this stage's key and every key after it, never one
    /// before it.
    public func key(after inputKey: String) -> String {
        var hash = StableHash()
        hash.add(inputKey)
        hash.add(Self.name)
        hash.add(options.keyText)
        hash.add("checkpoint-format=\(StageKey.checkpointFormat)")
        return hash.hex
    }
}

/// A stage whose output is saved in the workspace (`work/checkpoints/`) under its key.
public protocol CheckpointedStage: ReconstructionStage where Output: Codable {}

/// A stage's options: each field documented with its default, one check.
public protocol StageOptions {
    /// The fields that decide the output, as text for the checkpoint key. Thread counts are
    /// not among them: results do not depend on them.
    var keyText: String { get }
    /// Throws the first field out of range.
    func validate() throws
}

/// Options of a stage that has none of its own.
public struct NoStageOptions: StageOptions {
    public init() {}
    public var keyText: String { "" }
    public func validate() throws {}
}

/// How checkpoint keys are spelled.
public enum StageKey {
    /// The checkpoint format, part of every stage key. Bump it when any stage's output for the
    /// same inputs and options changes (a new algorithm, another default, another checkpoint
    /// layout): every checkpoint of an earlier format is then run again, so no stage needs to
    /// read an older one.
    public static let checkpointFormat = 2

    /// Option values as text, every stored field by name (Swift's reflection of a plain struct
    /// is the same in every run of the same program: these types hold no sets or dictionaries).
    public static func describe<T>(_ value: T) -> String { String(reflecting: value) }
}
