import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetryDense

/// `photogrammetry mesh CLOUD.ply OUTPUT [--detail LEVEL] [--room] [--threads N] [--progress MODE]`: a mesh at a
/// detail level, exported, from any point cloud with normals (our dense.ply, a LiDAR scan).
enum MeshCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.mesh.parse(arguments)
        guard parsed.positionals.count == 2 else {
            throw ArgumentParser.Failure(description: "mesh takes CLOUD.ply and OUTPUT (a folder or a .usdz/.glb/.obj/.ply/.stl file)")
        }
        var options = SurfaceOptions()
        if let text = parsed["detail"] {
            guard let detail = DetailLevel(parsing: text) else {
                throw ArgumentParser.Failure(description: "--detail must be one of \(DetailLevel.names)")
            }
            options.detail = detail
        }
        if let threads = parsed.threads { options.numThreads = threads }
        options.room = parsed.flags.contains("room")
        guard !parsed.positionals[1].isEmpty else {
            throw ArgumentParser.Failure(description: "OUTPUT is empty (\"\"): name a folder or a model file")
        }
        let cloudURL = URL(fileURLWithPath: parsed.positionals[0])
        let output = URL(fileURLWithPath: parsed.positionals[1])
        let layout = OutputLayout(output: output)
        let targets = layout.modelFile.map { [$0] } ?? layout.folderModels
        try checkWritable(layout)

        let mode = try PipelineArguments.progressMode(from: parsed)
        let printer = ProgressPrinter(mode: mode)
        // Standard output carries the JSON lines with --progress json; the summary goes beside them.
        let say = summaryOutput(mode)
        try RunClosing.run(printer) {
            let started = Date()
            let stage = SurfaceReconstruction.stageName
            let (cloud, loadSeconds, result, exportSeconds) = try RunClosing.stage(stage, printer) {
                let cloud = try load(cloudURL)
                let loadSeconds = Date().timeIntervalSince(started)
                let result: SurfaceResult
                do {
                    result = try SurfaceReconstruction(options: options).run(cloud: cloud) { done, total in
                        printer.update(stage: stage, done: done, total: total)
                    } stepStarted: { step, estimate in
                        printer.step(stage: stage, step, estimatedSeconds: estimate)
                    }
                } catch {
                    throw MeshFailure("\(cloudURL.path): \(error)")
                }

                let exportStart = Date()
                var model = result.mesh.meshModel()
                // The cloud's unit: metres only when its header says so (our dense.ply of a metric run).
                model.lengthUnit = (try? ModelReader.plyLengthUnit(cloudURL)) ?? .unknown
                let folder = layout.modelFile?.deletingLastPathComponent() ?? layout.root
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try ModelExporter.write(model, to: targets)
                return (cloud, loadSeconds, result, Date().timeIntervalSince(exportStart))
            }

            say("cloud: \(cloudURL.path): \(cloud.pointCount) points, median spacing \(format(result.medianSpacing, 4))")
            say("poisson depth \(result.depth) (cell \(format(result.cellSize, 4))): \(result.poissonTriangles) triangles; "
                + "trimmed \(result.trim.lowDensityVertices) low-density vertices, \(result.trim.farTriangles) far "
                + "and \(result.trim.outsideTriangles) outside triangles")
            let decimation = result.usedClustering ? " (clustering fallback)" : ""
            say("\(options.detail.rawValue): \(result.mesh.triangleCount) triangles, \(result.mesh.vertexCount) vertices "
                + "(undecimated \(result.undecimated.triangleCount))\(decimation)")
            let steps = [("load", loadSeconds)] + result.timings.map { ($0.name, $0.seconds) } + [("export", exportSeconds)]
            say("seconds: " + steps.map { "\($0.0) \(format($0.1, 2))" }.joined(separator: ", ")
                + ", total \(format(Date().timeIntervalSince(started), 2))")
            say("peak memory: \(peakMemoryText)")
            for target in targets { say("wrote \(target.path)") }
            printer.close(.finished(.init(status: "complete",
                                          outputs: RunClosing.existing(targets.map { (RunClosing.modelOutputName($0), $0) }),
                                          figures: .init(triangles: result.mesh.triangleCount))))
        }
    }

    /// Where a command's summary lines go: standard output, or standard error when standard
    /// output carries `--progress json`'s lines.
    static func summaryOutput(_ mode: ProgressMode) -> (String) -> Void {
        mode == .json ? { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } : { print($0) }
    }

    /// Reads the cloud, failing with one line naming the file: not a regular file (checked
    /// before it is opened: a named pipe would block the read forever), not a PLY, without
    /// normals, or with a non-finite position or normal.
    static func load(_ url: URL) throws -> PointCloud {
        do { try RegularFile.check(url, kind: "a PLY point cloud") } catch { throw MeshFailure("\(error)") }
        let cloud: PointCloud
        do { cloud = try PointCloud.load(url) } catch {
            var message = "\(error)"
            // The core names the file by its last component; say it once, as given.
            if message.hasPrefix(url.lastPathComponent + ": ") { message.removeFirst(url.lastPathComponent.count + 2) }
            throw MeshFailure(message.contains(url.path) ? message : "\(url.path): \(message)")
        }
        guard cloud.hasNormals else {
            throw MeshFailure("\(url.path): the cloud has no normals (nx, ny, nz); meshing needs an oriented cloud such as dense.ply")
        }
        do { try ModelReader.requireFinite(cloud, name: url.path) } catch { throw MeshFailure("\(error)") }
        return cloud
    }

    /// Refuses an OUTPUT that cannot take the files before the (long) meshing runs.
    static func checkWritable(_ layout: OutputLayout) throws {
        var isFolder: ObjCBool = false
        if layout.modelFile == nil, FileManager.default.fileExists(atPath: layout.root.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw MeshFailure("cannot write OUTPUT \(layout.root.path): it is a file, not a folder")
        }
        if let file = layout.modelFile, FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue {
            throw MeshFailure("cannot write OUTPUT \(file.path): it is a folder")
        }
    }

    static func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// The process's peak resident memory, "812 MB" (MiB, as the stages' figures), for the last line.
    static var peakMemoryText: String { PeakMemory.megabytes().map { "\(Int($0)) MB" } ?? "unknown" }
}

/// A failed `mesh` or `stats` run, printed as one line.
struct MeshFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
