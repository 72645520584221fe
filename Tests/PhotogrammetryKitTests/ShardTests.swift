import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Which part of a batch a process runs: from `--shard`, Slurm's array variables, or a
/// Kubernetes Indexed Job's index with `--shards`.
final class ShardTests: XCTestCase {
    private func resolve(_ shard: String? = nil, shards: String? = nil, _ environment: [String: String] = [:]) throws -> Shard? {
        try Shard.resolve(shard: shard, shards: shards, environment: environment)
    }

    private func failure(_ shard: String? = nil, shards: String? = nil, _ environment: [String: String] = [:]) -> String {
        do {
            _ = try resolve(shard, shards: shards, environment)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testCaptureKBelongsToShardKModN() throws {
        let shard = try XCTUnwrap(try resolve("1/3"))
        XCTAssertEqual((0..<10).filter(shard.contains), [1, 4, 7])
        XCTAssertEqual(shard.recordName, "batch-shard-1-of-3.json")
        // Every capture in exactly one shard.
        let shards = try (0..<3).map { try XCTUnwrap(try resolve("\($0)/3")) }
        for k in 0..<10 { XCTAssertEqual(shards.filter { $0.contains(k) }.count, 1) }
    }

    func testShardTextIsStrict() {
        XCTAssertEqual(failure("3/3"), "--shard 3/3: I must be from 0 to 2 (0-based, below N)")
        XCTAssertEqual(failure("1/0"), "--shard 1/0: N must be at least 1")
        XCTAssertEqual(failure("1-3"), "--shard 1-3: want I/N, two whole numbers (I from 0)")
        XCTAssertEqual(failure("-1/3"), "--shard -1/3: I must be from 0 to 2 (0-based, below N)")
        XCTAssertEqual(failure("1/3", shards: "3"), "--shard and --shards cannot both be given")
    }

    func testNoShardRunsTheWholeBatch() throws {
        XCTAssertNil(try resolve(nil, ["PATH": "/bin"]))
    }

    func testSlurmArraysFromAnyFirstIndex() throws {
        // --array=0-3: index = ID, 4 tasks.
        let zero = try resolve(nil, ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
                                     "SLURM_ARRAY_TASK_COUNT": "4"])
        XCTAssertEqual(zero.map { [$0.index, $0.count] }, [2, 4])
        // --array=1-4: index = ID - MIN.
        let one = try resolve(nil, ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"])
        XCTAssertEqual(one.map { [$0.index, $0.count] }, [0, 4])
        XCTAssertEqual(one?.source, "SLURM_ARRAY_TASK_ID=1 - SLURM_ARRAY_TASK_MIN=1 of 4 tasks")
        // --array=0-6:2 (0, 2, 4, 6): task 4 is the third of four.
        let stepped = try resolve(nil, ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6",
                                        "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"])
        XCTAssertEqual(stepped.map { [$0.index, $0.count] }, [2, 4])
        // ID with COUNT only.
        let counted = try resolve(nil, ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "5"])
        XCTAssertEqual(counted.map { [$0.index, $0.count] }, [3, 5])
        // An explicit --shard wins over the array.
        XCTAssertEqual(try resolve("0/2", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "5"])?.count, 2)
        // --shards must agree with the array.
        XCTAssertEqual(try resolve(nil, shards: "4", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1",
                                                      "SLURM_ARRAY_TASK_MAX": "4"])?.index, 0)
    }

    func testSlurmArraysThatSayNoShardAreRefused() {
        XCTAssertEqual(failure(nil, ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "9",
                                     "SLURM_ARRAY_TASK_COUNT": "3"]),
                       "the Slurm array 1-9 has 3 tasks, not a range of 9: give --shard I/N")
        XCTAssertEqual(failure(nil, ["SLURM_ARRAY_TASK_ID": "7"]),
                       "SLURM_ARRAY_TASK_ID=7 is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN/_MAX: give --shard I/N")
        XCTAssertEqual(failure(nil, ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "5"]),
                       "SLURM_ARRAY_TASK_ID=5 is not below SLURM_ARRAY_TASK_COUNT=5")
        XCTAssertEqual(failure(nil, ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "5"]),
                       "SLURM_ARRAY_TASK_ID=x: want a whole number")
        XCTAssertEqual(failure(nil, shards: "3", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"]),
                       "--shards 3 disagrees with the Slurm array's 4 tasks (SLURM_ARRAY_TASK_ID=1 of SLURM_ARRAY_TASK_COUNT=4)")
    }

    func testKubernetesIndexedJobsNeedTheCount() throws {
        let shard = try resolve(nil, shards: "4", ["JOB_COMPLETION_INDEX": "3"])
        XCTAssertEqual(shard, Shard(index: 3, count: 4, source: "JOB_COMPLETION_INDEX=3 of --shards 4"))
        XCTAssertEqual(failure(nil, ["JOB_COMPLETION_INDEX": "3"]),
                       "JOB_COMPLETION_INDEX=3 is set but --shards N is not: give the Job's completions as --shards")
        XCTAssertEqual(failure(nil, shards: "3", ["JOB_COMPLETION_INDEX": "3"]), "JOB_COMPLETION_INDEX=3 is not below --shards 3")
        XCTAssertEqual(failure(nil, shards: "3"),
                       "--shards 3 needs JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID in the environment; else give --shard I/N")
        XCTAssertEqual(failure(nil, shards: "0", ["JOB_COMPLETION_INDEX": "0"]), "--shards 0: want a whole number, at least 1")
        XCTAssertEqual(try resolve("1/2", ["JOB_COMPLETION_INDEX": "0"])?.index, 1, "--shard wins")
    }
}
