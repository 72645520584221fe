import Foundation

/// The part of a batch one process runs: capture k of the sorted batch belongs to shard k mod N.
///
/// A cluster's own job arrays say which part a process is, so that no coordinator of ours is
/// needed: Slurm (`SLURM_ARRAY_TASK_ID` with `SLURM_ARRAY_TASK_MIN`/`_MAX`, or with
/// `SLURM_ARRAY_TASK_COUNT`) and Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`, with the count
/// from `--shards N`, which a pod cannot read from its Job). An explicit `--shard I/N` wins.
public struct Shard: Codable, Sendable, Equatable {
    /// 0-based, below `count`.
    public var index: Int
    public var count: Int
    /// Where the shard came from, for people: "--shard 1/3", "SLURM_ARRAY_TASK_ID=2 - SLURM_ARRAY_TASK_MIN=1", ...
    public var source: String

    public init(index: Int, count: Int, source: String) {
        (self.index, self.count, self.source) = (index, count, source)
    }

    /// Why a shard cannot be made of what was given, one line.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Whether capture `k` of the sorted batch is this shard's.
    public func contains(_ k: Int) -> Bool { k % count == index }

    /// The record file of this shard under OUT_ROOT: `batch-shard-I-of-N.json`.
    public var recordName: String { "batch-shard-\(index)-of-\(count).json" }

    /// Parses `--shard I/N`: two non-negative integers, N at least 1, I below N.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw Failure(description: "--shard \(text): want I/N, two whole numbers (I from 0)")
        }
        guard count >= 1 else { throw Failure(description: "--shard \(text): N must be at least 1") }
        guard index >= 0 && index < count else {
            throw Failure(description: "--shard \(text): I must be from 0 to \(count - 1) (0-based, below N)")
        }
        self.init(index: index, count: count, source: "--shard \(text)")
    }

    /// The shard a process runs, or nil for the whole batch.
    ///
    /// In order: `--shard I/N`; Slurm's array variables (index ID − MIN over MAX − MIN + 1 tasks,
    /// divided by `SLURM_ARRAY_TASK_STEP` when the array has a step; else ID over
    /// `SLURM_ARRAY_TASK_COUNT`), where `--shards N`, if given, must agree; `JOB_COMPLETION_INDEX`
    /// over `--shards N`. `--shards N` with no index in the environment is an error, as is an index
    /// without a count: either way each process would run the whole batch.
    /// - Parameters:
    ///   - shard: the `--shard` text, if given.
    ///   - shards: the `--shards` text, if given.
    public static func resolve(shard: String?, shards: String?, environment: [String: String]) throws -> Shard? {
        if let shard {
            guard shards == nil else { throw Failure(description: "--shard and --shards cannot both be given") }
            return try Shard(parsing: shard)
        }
        var count: Int?
        if let shards {
            guard let n = Int(shards), n >= 1 else { throw Failure(description: "--shards \(shards): want a whole number, at least 1") }
            count = n
        }
        if let slurm = try slurmShard(environment) {
            if let count, count != slurm.count {
                throw Failure(description: "--shards \(count) disagrees with the Slurm array's \(slurm.count) tasks (\(slurm.source))")
            }
            return slurm
        }
        if let text = environment["JOB_COMPLETION_INDEX"] {
            guard let index = Int(text), index >= 0 else {
                throw Failure(description: "JOB_COMPLETION_INDEX=\(text): want a whole number from 0")
            }
            guard let count else {
                throw Failure(description: "JOB_COMPLETION_INDEX=\(text) is set but --shards N is not: give the Job's completions as --shards")
            }
            guard index < count else {
                throw Failure(description: "JOB_COMPLETION_INDEX=\(text) is not below --shards \(count)")
            }
            return Shard(index: index, count: count, source: "JOB_COMPLETION_INDEX=\(text) of --shards \(count)")
        }
        if let count {
            throw Failure(description: "--shards \(count) needs JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID in the environment; "
                          + "else give --shard I/N")
        }
        return nil
    }

    /// The shard of a Slurm array task, nil outside one.
    static func slurmShard(_ environment: [String: String]) throws -> Shard? {
        guard let idText = environment["SLURM_ARRAY_TASK_ID"] else { return nil }
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text) else { throw Failure(description: "\(name)=\(text): want a whole number") }
            return value
        }
        let id = try number("SLURM_ARRAY_TASK_ID")!
        let reportedCount = try number("SLURM_ARRAY_TASK_COUNT")
        let index: Int, count: Int, source: String
        if let min = try number("SLURM_ARRAY_TASK_MIN"), let max = try number("SLURM_ARRAY_TASK_MAX") {
            let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
            guard step >= 1, max >= min, id >= min, id <= max, (id - min) % step == 0 else {
                throw Failure(description: "SLURM_ARRAY_TASK_ID=\(idText) is not a task of the array \(min)-\(max):\(step)")
            }
            index = (id - min) / step
            count = (max - min) / step + 1
            source = "SLURM_ARRAY_TASK_ID=\(id) - SLURM_ARRAY_TASK_MIN=\(min) of \(count) tasks"
            // An array given as a list (--array=1,4,9) has a count that no range gives: its
            // task ids do not say their position, so the shard cannot be derived from them.
            if let reportedCount, reportedCount != count {
                throw Failure(description: "the Slurm array \(min)-\(max) has \(reportedCount) tasks, not a range of "
                              + "\(count): give --shard I/N")
            }
        } else if let reportedCount {
            guard id >= 0 && id < reportedCount else {
                throw Failure(description: "SLURM_ARRAY_TASK_ID=\(id) is not below SLURM_ARRAY_TASK_COUNT=\(reportedCount)")
            }
            (index, count) = (id, reportedCount)
            source = "SLURM_ARRAY_TASK_ID=\(id) of SLURM_ARRAY_TASK_COUNT=\(reportedCount)"
        } else {
            throw Failure(description: "SLURM_ARRAY_TASK_ID=\(idText) is set without SLURM_ARRAY_TASK_COUNT or "
                          + "SLURM_ARRAY_TASK_MIN/_MAX: give --shard I/N")
        }
        return Shard(index: index, count: count, source: source)
    }
}
