import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The example cluster jobs in `scripts/cluster/` split a batch as they say: the sbatch script
/// run as Slurm runs each array task, the Indexed Job's container command run with each pod's
/// index, both with `--dry-run` (the plan, nothing reconstructed).
final class ClusterJobTests: XCTestCase {
    static let cluster = Repository.datasets.deletingLastPathComponent().appendingPathComponent("scripts/cluster")

    /// Seven empty capture folders: enough to plan a batch.
    private func captures() throws -> URL {
        let root = try makeBridgeTestDirectory(self).appendingPathComponent("captures")
        for k in 0..<7 { try FileManager.default.createDirectory(at: root.appendingPathComponent("capture-\(k)"),
                                                                 withIntermediateDirectories: true) }
        return root
    }

    /// The environment of a process outside any cluster, plus `variables`.
    private func environment(_ variables: [String: String]) -> [String: String] {
        var clean = ["SLURM_ARRAY_TASK_ID": "", "SLURM_ARRAY_TASK_MIN": "", "SLURM_ARRAY_TASK_MAX": "",
                     "SLURM_ARRAY_TASK_COUNT": "", "SLURM_ARRAY_TASK_STEP": "", "JOB_COMPLETION_INDEX": "",
                     "SLURM_CPUS_PER_TASK": ""]
        clean.merge(variables) { _, new in new }
        return clean
    }

    /// The capture indices a plan (`--dry-run`'s output) runs, and its first line.
    private func planned(_ outcome: BuiltProgram.Outcome) -> (header: String, indices: [Int]) {
        let lines = outcome.outputLines
        let indices = lines.dropFirst().compactMap { Int($0.split(separator: " ").first ?? "") }
        return (lines.first ?? "", indices)
    }

    func testTheSbatchArraySplitsTheBatchWhateverItsFirstIndex() throws {
        let script = Self.cluster.appendingPathComponent("batch.sbatch")
        let text = try String(contentsOf: script, encoding: .utf8)
        XCTAssertTrue(text.contains("#SBATCH --array=0-3"), "the default array the comment describes")
        let input = try captures()
        let out = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        let logs = try makeBridgeTestDirectory(self)
        for (first, last) in [(0, 3), (1, 4)] {
            var seen: [Int] = []
            for id in first...last {
                let outcome = try BuiltProgram.run(
                    [script.path, input.path, out.path, "--sparse-only", "--dry-run"], executable: URL(fileURLWithPath: "/bin/bash"),
                    environment: environment(["PHOTOGRAMMETRY": BuiltProgram.executable.path, "SLURM_ARRAY_TASK_ID": "\(id)",
                                              "SLURM_ARRAY_TASK_MIN": "\(first)", "SLURM_ARRAY_TASK_MAX": "\(last)",
                                              "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_CPUS_PER_TASK": "3"]),
                    timeout: 30, logs: logs)
                XCTAssertEqual(outcome.status, 0, outcome.standardError)
                let plan = planned(outcome)
                XCTAssertTrue(plan.header.hasPrefix("shard \(id - first) of 4 (SLURM_ARRAY_TASK_ID=\(id) - SLURM_ARRAY_TASK_MIN=\(first)"),
                              plan.header)
                XCTAssertTrue(plan.header.hasSuffix("record \(out.path)/batch-shard-\(id - first)-of-4.json"), plan.header)
                XCTAssertEqual(plan.indices, (0..<7).filter { $0 % 4 == id - first }, "task \(id) of \(first)-\(last)")
                seen += plan.indices
            }
            XCTAssertEqual(seen.sorted(), Array(0..<7), "every capture in exactly one task")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "a dry run writes nothing")
    }

    /// The manifest is YAML in its JSON subset after its comment lines (a YAML comment is a whole
    /// line starting with #, which JSON's strings cannot span), parsed here by JSONSerialization.
    func testTheIndexedJobManifestParsesAndSplitsTheBatch() throws {
        let text = try String(contentsOf: Self.cluster.appendingPathComponent("batch-job.yaml"), encoding: .utf8)
        let json = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
        let job = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(job["apiVersion"] as? String, "batch/v1")
        XCTAssertEqual(job["kind"] as? String, "Job")
        let spec = try XCTUnwrap(job["spec"] as? [String: Any])
        XCTAssertEqual(spec["completionMode"] as? String, "Indexed")
        let completions = try XCTUnwrap(spec["completions"] as? Int)
        let template = try XCTUnwrap((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        XCTAssertEqual(template["restartPolicy"] as? String, "Never")
        let container = try XCTUnwrap((template["containers"] as? [[String: Any]])?.first)
        XCTAssertEqual(container["command"] as? [String], ["photogrammetry"])
        var args = try XCTUnwrap(container["args"] as? [String])
        XCTAssertEqual(args.first, "batch")
        let shards = try XCTUnwrap(args.firstIndex(of: "--shards"))
        XCTAssertEqual(args[shards + 1], "\(completions)", "--shards must be the Job's completions")
        let mounts = try XCTUnwrap(container["volumeMounts"] as? [[String: Any]])
        XCTAssertTrue(mounts.contains { ($0["mountPath"] as? String).map { args[1].hasPrefix($0) && args[2].hasPrefix($0) } == true },
                      "captures and OUT_ROOT on the mounted volume")

        // The container's own arguments, on local folders, with each pod's index.
        let input = try captures()
        let out = try makeBridgeTestDirectory(self).appendingPathComponent("out")
        args[1] = input.path
        args[2] = out.path
        var seen: [Int] = []
        for index in 0..<completions {
            let outcome = try BuiltProgram.run(args + ["--dry-run"], environment: environment(["JOB_COMPLETION_INDEX": "\(index)"]),
                                               timeout: 30, logs: try makeBridgeTestDirectory(self))
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let plan = planned(outcome)
            XCTAssertTrue(plan.header.hasPrefix("shard \(index) of \(completions) (JOB_COMPLETION_INDEX=\(index) of --shards \(completions))"),
                          plan.header)
            XCTAssertEqual(plan.indices, (0..<7).filter { $0 % completions == index })
            seen += plan.indices
        }
        XCTAssertEqual(seen.sorted(), Array(0..<7))
    }
}
