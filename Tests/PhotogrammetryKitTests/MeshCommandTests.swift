import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `photogrammetry mesh` and `photogrammetry stats` run as a user runs them (the built binary):
/// exit codes, the files written, one line on standard error for bad input and nothing left.
final class MeshCommandTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    private func run(_ arguments: [String], timeout: TimeInterval = 300) throws -> Outcome {
        let running = try BuiltProgram.start(arguments, logs: try makeBridgeTestDirectory(self))
        return try running.wait(timeout: timeout)
    }

    /// A small sphere cloud with normals and colours, as a binary PLY.
    private func sphereCloudFile(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("sphere.ply")
        try SyntheticSurface.sphereCloud(count: 6_000, radius: 0.3, noise: 0.001).save(to: url)
        return url
    }

    func testMeshWritesTheFolderModelsAndStatsReadsThem() throws {
        let folder = try makeBridgeTestDirectory(self)
        let cloud = try sphereCloudFile(in: folder)
        let output = folder.appendingPathComponent("out")
        let outcome = try run(["mesh", cloud.path, output.path, "--detail", "preview", "--threads", "2"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        XCTAssertEqual(names, ["model.glb", "model.mtl", "model.obj", "model.usdz"])
        XCTAssertTrue(outcome.standardOutput.contains("preview: "), outcome.standardOutput)
        XCTAssertTrue(outcome.standardOutput.contains("peak memory: "), outcome.standardOutput)
        for step in ["poisson", "trim", "clean", "colour", "decimate", "export"] {
            XCTAssertTrue(outcome.standardOutput.contains("\(step) "), step)
        }
        let stats = try run(["stats", "--json"] + names.filter { $0 != "model.mtl" }.map { output.appendingPathComponent($0).path })
        XCTAssertEqual(stats.status, 0, stats.standardError)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 3)
        let triangles = Set(rows.map { $0["triangles"] as? Int ?? -1 })
        XCTAssertEqual(triangles.count, 1, "the same mesh in every file")
        XCTAssertLessThan(triangles.first!, 25_000)
        XCTAssertGreaterThan(triangles.first!, 2_000)
        for row in rows {
            let size = try XCTUnwrap(row["size"] as? [Double])
            for s in size { XCTAssertEqual(s, 0.6, accuracy: 0.03, "a sphere of radius 0.3") }
            XCTAssertEqual(row["size_unit"] as? String, "unknown", "a cloud that names no unit")
        }
        let table = try run(["stats", output.appendingPathComponent("model.usdz").path])
        XCTAssertEqual(table.status, 0)
        XCTAssertEqual(table.outputLines.count, 2, table.standardOutput)
        XCTAssertTrue(table.outputLines[0].hasPrefix("file"))
    }

    /// `mesh --progress json`: standard output is JSON lines only (the summary goes to standard
    /// error), the surface stage numbered 1 of 1, and the last line is the finished event naming
    /// the files written and the triangle count.
    func testMeshProgressJSONEndsWithTheFinishedEvent() throws {
        let folder = try makeBridgeTestDirectory(self)
        let cloud = try sphereCloudFile(in: folder)
        let output = folder.appendingPathComponent("sphere.glb")
        let outcome = try run(["mesh", cloud.path, output.path, "--detail", "preview", "--threads", "2", "--progress", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let lines = try outcome.outputLines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], $0) }
        XCTAssertTrue(lines.allSatisfy { $0["t"] is Double && $0["schema"] as? Int == ProgressPrinter.jsonSchema })
        let progress = lines.filter { $0["event"] as? String == "progress" }
        XCTAssertEqual(progress.count, SurfaceReconstruction.steps.count)
        XCTAssertTrue(progress.allSatisfy { $0["stage"] as? String == "surface" && $0["index"] as? Int == 1 && $0["count"] as? Int == 1 })
        let closing = try XCTUnwrap(lines.last)
        XCTAssertEqual(closing["event"] as? String, "finished")
        XCTAssertEqual(closing["outputs"] as? [String: String], ["model_glb": output.path])
        let triangles = try XCTUnwrap((closing["report"] as? [String: Any])?["triangles"] as? Int)
        XCTAssertTrue(outcome.standardError.contains("preview: \(triangles) triangles"), outcome.standardError)
        XCTAssertTrue(outcome.standardError.contains("wrote \(output.path)"), "the summary goes to standard error")
    }

    /// `stats A B C` with B unreadable and C missing: A's row is printed (table and JSON), then one
    /// error line per failing file naming it, in order, and exit code 1.
    func testStatsPrintsTheReadableFilesThenOneLinePerFailure() throws {
        let folder = try makeBridgeTestDirectory(self)
        let good = folder.appendingPathComponent("good.stl")
        try ModelExporter.write(MeshModel(positions: [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 2, 0)],
                                          normals: Array(repeating: SIMD3(0, 0, 1), count: 3),
                                          colors: Array(repeating: SIMD3(128, 128, 128), count: 3),
                                          triangles: [SIMD3(0, 1, 2)]), to: good)
        let garbage = folder.appendingPathComponent("garbage.glb")
        try Data("not a model".utf8).write(to: garbage)
        let missing = folder.appendingPathComponent("missing.obj")
        let files = [good, garbage, missing].map(\.path)
        let table = try run(["stats"] + files)
        XCTAssertEqual(table.status, 1)
        XCTAssertEqual(table.outputLines.count, 2, table.standardOutput)
        XCTAssertTrue(table.outputLines.last?.contains("good.stl") ?? false, table.standardOutput)
        guard table.errorLines.count == 2 else { return XCTFail("one line per failing file: \(table.standardError)") }
        XCTAssertTrue(table.errorLines[0].hasPrefix("photogrammetry: error: ") && table.errorLines[0].contains(garbage.path),
                      table.standardError)
        XCTAssertTrue(table.errorLines[1].hasPrefix("photogrammetry: error: ") && table.errorLines[1].contains(missing.path),
                      table.standardError)
        let json = try run(["stats", "--json"] + files)
        XCTAssertEqual(json.status, 1)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["triangles"] as? Int, 1)
        XCTAssertEqual(json.errorLines.count, 2, json.standardError)
    }

    func testTheCloudsUnitCarriesIntoTheModel() throws {
        let folder = try makeBridgeTestDirectory(self)
        let plain = try sphereCloudFile(in: folder)
        // The same cloud, its header saying metres as a metric run's dense.ply would.
        var data = try Data(contentsOf: plain)
        let comment = try XCTUnwrap(data.range(of: Data("comment written by Photogrammetry".utf8)))
        data.replaceSubrange(comment, with: Data("comment lengthUnit metres".utf8))
        let metric = folder.appendingPathComponent("metric.ply")
        try data.write(to: metric)
        for (cloud, unit) in [(plain, "unknown"), (metric, "m")] {
            let model = folder.appendingPathComponent("\(cloud.deletingPathExtension().lastPathComponent).usdz")
            let outcome = try run(["mesh", cloud.path, model.path, "--detail", "preview", "--threads", "2"])
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let stats = try run(["stats", "--json", model.path])
            let row = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(stats.standardOutput.utf8)) as? [[String: Any]])?.first)
            XCTAssertEqual(row["size_unit"] as? String, unit, cloud.lastPathComponent)
            XCTAssertEqual(try XCTUnwrap(row["size"] as? [Double])[0], 0.6, accuracy: 0.03)
        }
    }

    func testAnOutputWithAnExtensionWritesThatOneFile() throws {
        let folder = try makeBridgeTestDirectory(self)
        let cloud = try sphereCloudFile(in: folder)
        for name in ["one.stl", "one.ply"] {
            let output = folder.appendingPathComponent("sub").appendingPathComponent(name)
            let outcome = try run(["mesh", cloud.path, output.path, "--detail", "preview"])
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            XCTAssertLessThan(try ModelStats.read(output).triangles, 25_000)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("sub").path).sorted(),
                       ["one.ply", "one.stl"])
    }

    func testBadInputIsOneLineNamingTheFileAndWritesNothing() throws {
        let folder = try makeBridgeTestDirectory(self)
        let bare = folder.appendingPathComponent("bare.ply")
        try PointCloud(points: (0..<200).map { SIMD3(Float($0 % 10), Float($0 / 10), 0) }).save(to: bare)
        // The core writes zero normals for a cloud without them: make one truly without.
        try Data("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n".utf8)
            .write(to: bare)
        let garbage = folder.appendingPathComponent("garbage.ply")
        try Data("this is not a point cloud".utf8).write(to: garbage)
        let missing = folder.appendingPathComponent("missing.ply")
        for (input, words) in [(missing, "no such file"), (bare, "no normals"), (garbage, "")] {
            let output = folder.appendingPathComponent("out-\(input.lastPathComponent)")
            let outcome = try run(["mesh", input.path, output.path])
            XCTAssertEqual(outcome.status, 1, input.lastPathComponent)
            XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
            let line = outcome.errorLines.first ?? ""
            XCTAssertTrue(line.hasPrefix("photogrammetry: error: "), line)
            XCTAssertTrue(line.contains(input.path), line)
            if !words.isEmpty { XCTAssertTrue(line.contains(words), line) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "nothing written for \(input.lastPathComponent)")
        }
        let usage = try run(["mesh", bare.path])
        XCTAssertEqual(usage.status, 2)
        XCTAssertEqual(usage.errorLines.count, 1)
        let level = try run(["mesh", bare.path, folder.appendingPathComponent("x").path, "--detail", "huge"])
        XCTAssertEqual(level.status, 2)
        let stats = try run(["stats", garbage.path])
        XCTAssertEqual(stats.status, 1)
        XCTAssertEqual(stats.errorLines.count, 1)
        XCTAssertTrue(stats.errorLines.first?.contains(garbage.path) ?? false, stats.standardError)
    }
}
