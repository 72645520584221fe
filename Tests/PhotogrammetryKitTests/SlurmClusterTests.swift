import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `scripts/cluster/test-slurm.sh`: batch.sbatch as a job array on a real one-node Slurm started on
/// this machine, one task cancelled mid-capture with scancel, the array submitted again, every
/// capture then done exactly once. Runs where Slurm and MUNGE are installed and we are root (the
/// daemons need it); skipped elsewhere, saying why.
final class SlurmClusterTests: XCTestCase {
    static let script = ClusterJobTests.cluster.appendingPathComponent("test-slurm.sh")

    /// The first of Slurm's and MUNGE's programs the script needs that is not installed, if any.
    private func missingProgram() -> String? {
        let folders = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        return ["slurmctld", "slurmd", "sbatch", "scancel", "squeue", "scontrol", "sinfo", "munged"].first { program in
            !folders.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
        }
    }

    func testACancelledArrayTaskAndAResubmissionDoEveryCaptureExactlyOnce() throws {
        if let missing = missingProgram() {
            throw XCTSkip("\(missing) is not installed (apt-get install slurm-wlm munge; scripts/cluster/test-slurm.sh installs them when run by hand)")
        }
        guard getuid() == 0 else { throw XCTSkip("slurmd and munged run as root here; the tests do not") }
        let logs = try makeBridgeTestDirectory(self)
        let outcome = try BuiltProgram.run([Self.script.path], executable: URL(fileURLWithPath: "/bin/bash"),
                                           environment: ["PHOTOGRAMMETRY": BuiltProgram.executable.path], timeout: 300, logs: logs)
        XCTAssertEqual(outcome.status, 0, outcome.standardOutput + outcome.standardError)
        let lines = outcome.outputLines
        XCTAssertTrue(lines.contains { $0.contains("scancel") && $0.contains("while capture-1 ran") }, outcome.standardOutput)
        XCTAssertTrue(lines.contains { $0.contains("ended (CANCELLED, exit 143") && $0.contains("interrupted_by SIGTERM") },
                      outcome.standardOutput)
        XCTAssertTrue(lines.contains { $0.contains("6 captures: 6 ok (") && $0.contains(" reused, finished before)") }, outcome.standardOutput)
        XCTAssertTrue(lines.contains { $0.contains("PASS: every capture done exactly once") }, outcome.standardOutput)
        print(outcome.standardOutput)
    }
}
