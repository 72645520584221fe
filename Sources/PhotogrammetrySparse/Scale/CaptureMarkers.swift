import Foundation
import PhotogrammetryCore

/// The printed markers a run measures scale with: given with `--markers`, or described by a
/// `markers.json` beside the capture's images.
public struct CaptureMarkers: Sendable, Equatable {
    /// Which markers, of what size.
    public var spec: MarkerSpec
    /// The `markers.json` read; nil when `--markers` gave them.
    public var file: URL?
    /// The file's contents, hashed ("" without a file): a changed file reruns the metric scale.
    public var digest: String

    /// The markers of the run: `given` (`--markers`), else the capture's `markers.json`, else none.
    /// - Throws: ``PipelineError/invalidInput(_:)`` for a `markers.json` that cannot be read, as
    ///   for `mask.json`: a run silently without the scale it was meant to get would mislead.
    public static func resolve(given: MarkerSpec?, in capture: Capture) throws -> CaptureMarkers? {
        if let given { return CaptureMarkers(spec: given, file: nil, digest: "") }
        guard let url = MarkerSpec.discover(in: capture) else { return nil }
        do {
            return CaptureMarkers(spec: try MarkerSpec.load(url), file: url, digest: ContentDigest.file(url))
        } catch PipelineError.invalidInput(let message) {
            throw PipelineError.invalidInput(message + "; --markers DICT:SIZE_M overrides it")
        }
    }

    /// One line for the log: "markers DICT_4X4_50, 0.05 m (markers.json)".
    public var summary: String {
        "markers \(spec.summary)" + (file.map { " (\($0.lastPathComponent))" } ?? "")
    }
}
