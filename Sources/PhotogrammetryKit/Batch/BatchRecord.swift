import Foundation
import PhotogrammetryCore

/// What one batch process did, as `OUT_ROOT/batch.json` (the whole batch) or
/// `OUT_ROOT/batch-shard-I-of-N.json` (one shard): rewritten whole, atomically, as each capture
/// starts and ends, so that it always says how far the process got.
public struct BatchRecord: Codable, Sendable {
    /// One capture's outcome in this process.
    public struct Entry: Codable, Sendable, Equatable {
        /// Position in the sorted batch.
        public var index: Int
        public var name: String
        public var input: String
        /// The capture's output folder, absolute.
        public var output: String
        /// "ok", "failed", "interrupted" (a signal stopped it: not finished, a rerun runs it
        /// again from its checkpoints), "running", "pending". A capture found done is "ok" with
        /// ``finishedBefore``; records without that field said "skipped", read as the same.
        public var status: String
        /// Whether this run left it alone because it had finished before with the same options
        /// (status "ok"): a rerun's record tells which captures it reconstructed and which it found done.
        public var finishedBefore = false
        public var imagesRegistered: Int?
        public var imagesTotal: Int?
        public var captureKind: String?
        public var azimuthCoverageDeg: Double?
        public var elevationSpreadDeg: Double?
        /// Wall seconds of the capture's run; for a skipped one, the stage times of the run that
        /// made its outputs.
        public var seconds: Double?
        /// The failure's one line (the reconstruct error, or how the process ended).
        public var error: String?

        public init(index: Int, name: String, input: String, output: String, status: String) {
            (self.index, self.name, self.input, self.output, self.status) = (index, name, input, output, status)
        }

        enum CodingKeys: String, CodingKey {
            case index, name, input, output, status, finishedBefore = "finished_before"
            case imagesRegistered = "images_registered", imagesTotal = "images_total"
            case captureKind = "capture_kind", azimuthCoverageDeg = "azimuth_coverage_deg"
            case elevationSpreadDeg = "elevation_spread_deg", seconds, error
        }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            index = try c.decode(Int.self, forKey: .index)
            name = try c.decode(String.self, forKey: .name)
            input = try c.decode(String.self, forKey: .input)
            output = try c.decode(String.self, forKey: .output)
            status = try c.decode(String.self, forKey: .status)
            // Records written before the field have none, and call a capture found done "skipped":
            // it is finished, and counts with the finished ones.
            finishedBefore = try c.decodeIfPresent(Bool.self, forKey: .finishedBefore) ?? false
            if status == "skipped" {
                status = "ok"
                finishedBefore = true
            }
            imagesRegistered = try c.decodeIfPresent(Int.self, forKey: .imagesRegistered)
            imagesTotal = try c.decodeIfPresent(Int.self, forKey: .imagesTotal)
            captureKind = try c.decodeIfPresent(String.self, forKey: .captureKind)
            azimuthCoverageDeg = try c.decodeIfPresent(Double.self, forKey: .azimuthCoverageDeg)
            elevationSpreadDeg = try c.decodeIfPresent(Double.self, forKey: .elevationSpreadDeg)
            seconds = try c.decodeIfPresent(Double.self, forKey: .seconds)
            error = try c.decodeIfPresent(String.self, forKey: .error)
        }

        // Every key written, null when unknown: a reader can rely on the keys.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode(name, forKey: .name)
            try c.encode(input, forKey: .input)
            try c.encode(output, forKey: .output)
            try c.encode(status, forKey: .status)
            try c.encode(finishedBefore, forKey: .finishedBefore)
            try c.encode(imagesRegistered, forKey: .imagesRegistered)
            try c.encode(imagesTotal, forKey: .imagesTotal)
            try c.encode(captureKind, forKey: .captureKind)
            try c.encode(azimuthCoverageDeg, forKey: .azimuthCoverageDeg)
            try c.encode(elevationSpreadDeg, forKey: .elevationSpreadDeg)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(error, forKey: .error)
        }

        /// Takes the numbers of a capture's `report.json` (parsed), where there is one.
        mutating func take(report: [String: Any]) {
            imagesRegistered = report["images_registered"] as? Int
            imagesTotal = report["images_total"] as? Int
            captureKind = report["capture_kind"] as? String
            azimuthCoverageDeg = report["azimuth_coverage_deg"] as? Double
            elevationSpreadDeg = report["elevation_spread_deg"] as? Double
        }
    }

    public var version = Report().version
    /// LIST_OR_DIR, absolute.
    public var input: String
    /// nil when one process ran the whole batch.
    public var shard: Shard?
    /// The reconstruct options of every capture (``ReconstructionOptions/fingerprintText``).
    public var options: String
    public var optionsFingerprint: String
    /// Every capture of the batch, all shards, in sorted order: what `batch-summary` checks
    /// the shards' entries against.
    public var batchCaptures: [String]
    /// ISO 8601, UTC.
    public var startedAt: String
    /// When the process stopped, done or interrupted; nil while it runs (or if it was killed).
    public var finishedAt: String?
    /// The signal that stopped the process ("SIGTERM"), nil when it ran to the end: its capture
    /// then is "interrupted" and those after it "pending".
    public var interruptedBy: String?
    /// This process's captures (its shard's), in batch order.
    public var captures: [Entry]

    public init(input: String, shard: Shard?, options: String, optionsFingerprint: String, batchCaptures: [String],
                startedAt: String, finishedAt: String?, interruptedBy: String? = nil, captures: [Entry]) {
        (self.input, self.shard, self.options, self.optionsFingerprint) = (input, shard, options, optionsFingerprint)
        (self.batchCaptures, self.startedAt, self.finishedAt) = (batchCaptures, startedAt, finishedAt)
        (self.interruptedBy, self.captures) = (interruptedBy, captures)
    }

    enum CodingKeys: String, CodingKey {
        case version, input, shard, options, optionsFingerprint = "options_fingerprint", batchCaptures = "batch_captures"
        case startedAt = "started_at", finishedAt = "finished_at", interruptedBy = "interrupted_by", captures
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(input, forKey: .input)
        try c.encode(shard, forKey: .shard)
        try c.encode(options, forKey: .options)
        try c.encode(optionsFingerprint, forKey: .optionsFingerprint)
        try c.encode(batchCaptures, forKey: .batchCaptures)
        try c.encode(startedAt, forKey: .startedAt)
        try c.encode(finishedAt, forKey: .finishedAt)
        try c.encode(interruptedBy, forKey: .interruptedBy)
        try c.encode(captures, forKey: .captures)
    }

    /// The record file's name under OUT_ROOT for `shard`.
    public static func fileName(_ shard: Shard?) -> String { shard?.recordName ?? "batch.json" }

    /// Pretty, key-sorted JSON.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a record file.
    public static func load(_ url: URL) throws -> BatchRecord {
        do {
            return try JSONDecoder().decode(BatchRecord.self, from: Data(contentsOf: url))
        } catch {
            throw PipelineError.invalidInput("\(url.path): not a batch record (\(error.localizedDescription))")
        }
    }

    /// Now, as the record writes times.
    static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date())
    }
}
