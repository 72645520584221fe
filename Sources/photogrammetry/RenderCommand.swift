import Foundation
import PhotogrammetryKit
import PhotogrammetryCore
import PhotogrammetryBridge
import PhotogrammetryIO
import PhotogrammetryDense

/// `photogrammetry render FILE OUT_DIR [SIZE] [--cameras MODEL]`: PNG renders of a model file,
/// offscreen on the CPU, flat (ambient) shading so that shadows are never mistaken for detail.
enum RenderCommand {
    static func run(_ arguments: [String]) throws {
        let parsed = try CommandSpec.render.parse(arguments)
        guard (2...3).contains(parsed.positionals.count) else {
            throw ArgumentParser.Failure(description: "render takes FILE, OUT_DIR and optionally SIZE (the longer side in pixels)")
        }
        var size: Int?
        if parsed.positionals.count == 3 {
            let sizes = CommandSpec.renderSides
            guard let n = Int(parsed.positionals[2]), sizes.contains(n) else {
                throw ArgumentParser.Failure(description:
                    "SIZE \(parsed.positionals[2]): want an integer from \(sizes.lowerBound) to \(sizes.upperBound) (pixels of the longer side)")
            }
            size = n
        }
        guard !parsed.positionals[1].isEmpty else {
            throw ArgumentParser.Failure(description: "OUT_DIR is empty (\"\"): name a folder")
        }
        let file = URL(fileURLWithPath: parsed.positionals[0])
        let output = URL(fileURLWithPath: parsed.positionals[1])
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw MeshFailure("cannot write OUT_DIR \(output.path): it is a file, not a folder")
        }

        // Everything is read and checked before anything is written.
        let started = Date()
        let model: MeshModel
        do { model = try ModelReader.read(file) } catch { throw MeshFailure("\(error)") }  // refuses a FIFO unopened
        guard let bounds = model.bounds, bounds.min.x.isFinite, bounds.max.x.isFinite else {
            throw MeshFailure("\(file.path): no finite vertices to render")
        }
        let renderer: MeshRenderer
        do { renderer = try MeshRenderer(model) } catch { throw MeshFailure("\(file.path): \(error)") }
        let views: [RenderViews.View]
        if let cameras = parsed["cameras"] {
            let folder = Reconstruction.colmapModelDirectory(URL(fileURLWithPath: cameras))
            do {
                try RegularFile.checkColmapModel(in: folder)
                let reconstruction = try Reconstruction.readColmap(from: folder)
                views = try RenderViews.cameras(of: reconstruction, longerSide: size,
                                                nearDepth: 1e-4 * max(length(bounds.size), 1e-12))
            } catch let error as ModelStatsError {
                throw MeshFailure("\(error)")
            } catch let error as RenderViewsError where error.file != nil {
                throw MeshFailure("\(folder.appendingPathComponent(error.file!).path): \(error.message)")
            } catch {
                throw MeshFailure("\(folder.path): \(error)")
            }
            guard !views.isEmpty else { throw MeshFailure("\(folder.path): no registered images to render from") }
        } else {
            views = RenderViews.orbit(around: bounds, longerSide: size ?? CommandSpec.renderSide)
        }
        let loadSeconds = Date().timeIntervalSince(started)

        print("model: \(file.path): \(model.triangles.count) triangles, \(model.positions.count) vertices, "
              + (model.material.texture.map { "texture \($0.width) x \($0.height)" } ?? "vertex colours")
              + " (read in \(format(loadSeconds)) s)")
        var renderSeconds = 0.0
        for view in views {
            let target = output.appendingPathComponent(view.fileName)
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw MeshFailure("cannot write OUT_DIR \(output.path): \(error.localizedDescription)")
            }
            let start = Date()
            let image = try renderer.render(view.camera)
            let seconds = Date().timeIntervalSince(start)
            renderSeconds += seconds
            do { try image.writePNG(to: target) } catch { throw MeshFailure("\(error)") }
            var covered = 0
            for i in stride(from: 3, to: image.pixels.count, by: 4) where image.pixels[i] != 0 { covered += 1 }
            let percent = 100 * Double(covered) / Double(max(1, image.width * image.height))
            print("\(target.path): \(image.width) x \(image.height), \(format(percent, 1))% covered, rendered in \(format(seconds, 3)) s")
        }
        print("\(views.count) views rendered in \(format(renderSeconds, 2)) s")
    }

    static func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}
