import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// The dense stage: its manifest keys, and the whole pipeline on templeRing-12 at preview detail.
final class DenseStageTests: XCTestCase {
    // MARK: Manifest and keys

    func testStableHashIsFixed() {
        var hash = StableHash()
        hash.add("a")
        hash.add("bc")
        var other = StableHash()
        other.add("ab")
        other.add("c")
        XCTAssertNotEqual(hash.hex, other.hex, "separators keep fields apart")
        var empty = StableHash()
        empty.add([UInt8]())
        XCTAssertEqual(empty.hex, "cbf29ce484222325", "FNV-1a offset basis: the same in every process")
    }

    func testEntryMatchesWithinTolerance() {
        let entry = DenseManifest.Entry(key: "k", values: [1, 0.5, 10])
        XCTAssertTrue(entry.matches(DenseManifest.Entry(key: "k", values: [1 + 1e-12, 0.5, 10 - 1e-10])))
        XCTAssertFalse(entry.matches(DenseManifest.Entry(key: "k", values: [1.001, 0.5, 10])))
        XCTAssertFalse(entry.matches(DenseManifest.Entry(key: "other", values: [1, 0.5, 10])))
        XCTAssertFalse(entry.matches(DenseManifest.Entry(key: "k", values: [1, 0.5])))
    }

    func testViewKeyFollowsWorkingSizeAndFiles() throws {
        let folder = try temporaryDirectory()
        let image = folder.appendingPathComponent("a.png")
        try Data([1, 2, 3]).write(to: image)
        let camera = Camera(id: CameraID(1), model: .simpleRadial, width: 640, height: 480, params: [500, 320, 240, 0])
        func entry(_ detail: DetailLevel, camera: Camera = camera, rect: CGRect? = nil) -> DenseManifest.Entry {
            var options = DenseOptions()
            options.detail = detail
            let stage = DenseReconstruction(model: Reconstruction(), inputs: [:], options: options, directory: folder,
                                            cloudURL: folder.appendingPathComponent("dense.ply"), threads: 1, progress: nil)
            return stage.viewEntry(.init(name: "a.png", url: image, keepRect: rect), camera: camera,
                                   maxSide: detail.denseMaxImageSide ?? 0)
        }
        XCTAssertTrue(entry(.preview).matches(entry(.preview)))
        let large = Camera(id: CameraID(1), model: .simpleRadial, width: 1600, height: 1200, params: [1200, 800, 600, 0])
        XCTAssertFalse(entry(.preview, camera: large).matches(entry(.full, camera: large)), "a changed working size recomputes")
        // 640 px is under every cap from preview up: the views are the same size at every level.
        XCTAssertTrue(entry(.reduced).matches(entry(.full)), "the same working size at another level reuses")
        XCTAssertTrue(entry(.preview).matches(entry(.raw)))
        XCTAssertFalse(entry(.reduced, camera: large).matches(entry(.medium, camera: large)), "960 px against 1280 px")
        XCTAssertTrue(entry(.full, camera: large).matches(entry(.raw, camera: large)), "1600 px under full's cap and at raw alike")
        XCTAssertFalse(entry(.full).matches(entry(.full, rect: CGRect(x: 0, y: 0, width: 9, height: 9))))
        var refined = camera
        refined.params[0] = 510
        XCTAssertFalse(entry(.full).matches(entry(.full, camera: refined)), "changed intrinsics re-undistort")
        let before = entry(.full)
        try Data([1, 2, 3, 4]).write(to: image)
        XCTAssertFalse(before.matches(entry(.full)), "a changed image file re-undistorts")
    }

    func testOptionsAndErrors() {
        XCTAssertNoThrow(try DenseOptions().validate())
        var options = DenseOptions()
        options.numSourceViews = 0
        XCTAssertThrowsError(try options.validate())
        options = DenseOptions()
        options.cacheBytes = 1024
        XCTAssertThrowsError(try options.validate())
        let error = DenseReconstructionError("first\nsecond")
        XCTAssertFalse(error.description.contains("\n"))
        XCTAssertEqual(error.description, "dense reconstruction: first second")
    }

    // MARK: End to end

    /// The images a piece of HTML holds inline (`data:image/...;base64,` sources), in order.
    static func inlineImages(_ html: String) throws -> [Data] {
        let pattern = try NSRegularExpression(pattern: "data:image/(?:png|jpeg);base64,([A-Za-z0-9+/=]+)")
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
            Range(match.range(at: 1), in: html).flatMap { Data(base64Encoded: String(html[$0])) }
        }
    }

    /// templeRing-12 at preview detail: a plausible cloud on the sparse surface; a rerun reuses
    /// every depth map; a fusion that cannot succeed is one line and leaves the sparse outputs.
    func testTempleRingPreview() throws {
        let capture = Repository.datasets.appendingPathComponent("templeRing-12")
        let output = try temporaryDirectory().appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.detail = .preview
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesRegistered, 12)
        XCTAssertTrue(report.stages.contains { $0.name == "dense" })
        let densePoints = try XCTUnwrap(report.densePoints)
        let cloudURL = output.appendingPathComponent("dense.ply")
        let ply = try PointCloud.load(cloudURL)
        XCTAssertEqual(ply.pointCount, densePoints)
        XCTAssertTrue(ply.hasNormals && ply.hasColors)
        let cloud = ply.points.map { SIMD3<Double>($0) }
        XCTAssertGreaterThan(densePoints, 20_000, "12 views of 640 x 480")
        // Fusion turns at least minNumViews agreeing depth pixels into one point and marks them
        // used, so the valid pixels of the fused depth maps bound the count from above.
        let fusedSuffix = options.dense.geometricPass ? ".geometric.cvdm" : ".photometric.cvdm"
        let validDepths = try Self.validDepthPixels(output.appendingPathComponent("work/dense/depth"), suffix: fusedSuffix)
        XCTAssertGreaterThan(validDepths, 0)
        XCTAssertLessThanOrEqual(densePoints, validDepths / options.dense.fusion.minNumViews,
                                 "\(validDepths) valid depth pixels")

        // The dense points lie on the surface the sparse points sample.
        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let sparse = model.points3D.values.map(\.position)
        let low = sparse.reduce(sparse[0]) { pointwiseMin($0, $1) }, high = sparse.reduce(sparse[0]) { pointwiseMax($0, $1) }
        let size = length(high - low)
        let step = max(1, cloud.count / 1500)
        let distances = stride(from: 0, to: cloud.count, by: step).map { i in
            sparse.reduce(Double.infinity) { min($0, length($1 - cloud[i])) }
        }
        let median = try XCTUnwrap(distances.median())
        XCTAssertLessThan(median / size, 0.02, "median distance to the nearest sparse point, relative to the scene")

        // The mesh stages: a textured model below preview's cap, the same in the three formats.
        let triangles = try XCTUnwrap(report.triangles)
        XCTAssertLessThan(triangles, 25_000, "preview's cap")
        XCTAssertGreaterThan(triangles, 10_000, "a cloud of \(densePoints) points decimates to near the cap")
        XCTAssertEqual(report.textureSize, 1024)
        XCTAssertEqual(report.texturePages, 1)
        // No depth, priors or markers: the scale is unknown, and every file and the page say so.
        XCTAssertEqual(report.scaleSource, "none")
        XCTAssertEqual(report.meshUnits, "unknown")
        XCTAssertEqual(try ModelReader.plyLengthUnit(cloudURL), .unknown, "dense.ply: comment lengthUnit unknown")
        XCTAssertNotNil(try Data(contentsOf: cloudURL).prefix(400).range(of: Data("\ncomment lengthUnit unknown\n".utf8)))
        for name in ["model.usdz", "model.glb", "model.obj", "work/surface.ply"] {
            XCTAssertEqual(try ModelReader.read(output.appendingPathComponent(name)).lengthUnit, .unknown, name)
        }
        for name in ["model.usdz", "model.glb", "model.obj"] {
            let stats = try ModelStats.read(output.appendingPathComponent(name))
            XCTAssertEqual(stats.triangles, triangles, name)
            XCTAssertEqual(stats.textures.map(\.width), [1024], name)
            XCTAssertNil(stats.metersPerUnit, name)
            let row = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(ModelStatsTable.json([stats]).utf8)) as? [[String: Any]])?.first)
            XCTAssertEqual(row["size_unit"] as? String, "unknown", name)
        }
        // Textured: the GLB's texture is its colour, with no COLOR_0 to multiply it by.
        let glb = try ModelReader.GLBFile(Data(contentsOf: output.appendingPathComponent("model.glb")), name: "model.glb")
        let primitives = (glb.json["meshes"] as? [[String: Any]])?.first?["primitives"] as? [[String: Any]] ?? []
        XCTAssertFalse(primitives.isEmpty)
        for primitive in primitives {
            let attributes = primitive["attributes"] as? [String: Any] ?? [:]
            XCTAssertEqual(Set(attributes.keys), ["POSITION", "NORMAL", "TEXCOORD_0"])
        }

        // report.html shows the model: four views around it, and three photos each beside the
        // render from its camera, which must show the temple where the photo does.
        let page = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("<dt>Units</dt><dd>unknown: sizes are in arbitrary units (no depth images, pose priors, markers or --scale)"))
        let section = try XCTUnwrap(page.components(separatedBy: "<section class=\"model\">").dropFirst().first?
            .components(separatedBy: "</section>").first)
        let images = try Self.inlineImages(section)
        XCTAssertEqual(images.count, 4 + 2 * 3, "four views, three photo and render pairs")
        for k in stride(from: 4, to: images.count, by: 2) {
            let photo = try PixelImage(decoding: images[k], channels: 3), render = try PixelImage(decoding: images[k + 1], channels: 4)
            XCTAssertEqual([photo.width, photo.height], [render.width, render.height])
            var covered = 0, difference = 0
            for i in 0..<(render.width * render.height) where render.pixels[4 * i + 3] != 0 {
                covered += 1
                for c in 0..<3 { difference += abs(Int(render.pixels[4 * i + c]) - Int(photo.pixels[3 * i + c])) }
            }
            XCTAssertGreaterThan(Double(covered) / Double(render.width * render.height), 0.1, "the model fills part of the view")
            // The temple is bright on a dark backdrop: a render off its photo differs by ~150 levels.
            XCTAssertLessThan(Double(difference) / Double(3 * max(1, covered)), 35, "render matches its photo (pair \(k / 2 - 1))")
        }
        // Its 3D view in headless Chromium: model pixels fill the box the model projects to under
        // the page's own matrices, pointing at a camera shows its photo, and clicking it and
        // "Look through this camera" takes that camera's pose and lens (viewer-check.py says how).
        let shots = output.appendingPathComponent("viewer-shots")
        if let figures = BrowserCheck.viewer(report: output.appendingPathComponent("report.html"), shots: shots) {
            let orbit = try XCTUnwrap(figures["orbit"] as? [String: Any])
            XCTAssertGreaterThan(orbit["box_fill"] as? Double ?? 0, 0.1)
            XCTAssertLessThan(orbit["outside_fraction"] as? Double ?? 1, 0.002)
            let toggles = try XCTUnwrap(figures["toggles"] as? [String: Any])
            XCTAssertEqual(toggles["model_off_drawn"] as? Int, 0, "nothing drawn with the model and cameras off")
            XCTAssertGreaterThan(toggles["dense_fill"] as? Double ?? 0, 0.02, "the dense cloud's toggle shows it")
            let camera = try XCTUnwrap(figures["camera"] as? [String: Any])
            XCTAssertGreaterThan(camera["forward_dot"] as? Double ?? 0, 0.9999)
            XCTAssertLessThan(camera["lens_error_px"] as? Double ?? 1, 0.5, "the model box lands where the camera's pinhole puts it")
            XCTAssertEqual(figures["without_webgl_keeps_renders"] as? Bool, true)
        }

        // A rerun reuses every depth map and the cloud.
        let depthFolder = output.appendingPathComponent("work/dense/depth")
        let stamps = try Self.modificationDates(depthFolder)
        XCTAssertEqual(stamps.count, options.dense.geometricPass ? 24 : 12, "a photometric (and a geometric) map per image")
        let cloudStamp = try Self.modificationDate(cloudURL)
        let again = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(again.densePoints, densePoints)
        XCTAssertEqual(try Self.modificationDates(depthFolder), stamps, "no depth map recomputed")
        XCTAssertEqual(try Self.modificationDate(cloudURL), cloudStamp)

        // A fusion that keeps nothing: one line, the sparse model and report stay.
        options.dense.fusion.minNumViews = 13
        XCTAssertThrowsError(try ReconstructionPipeline(input: capture, output: output, options: options,
                                                        progress: nil).run()) { error in
            XCTAssertTrue(error is DenseReconstructionError, "\(error)")
            XCTAssertFalse("\(error)".contains("\n"))
        }
        XCTAssertEqual(try Self.modificationDates(depthFolder), stamps, "fusion options do not touch depth maps")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("sparse/images.txt").path))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json")))
        XCTAssertTrue((json as? [String: Any])?["dense_points"] is NSNull)
    }

    // MARK: Helpers

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-dense-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private static func modificationDate(_ url: URL) throws -> Date {
        try XCTUnwrap(url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate)
    }

    /// Pixels with a depth in the depth maps of `folder` whose names end in `suffix`.
    /// The geometric pass through the pipeline (off by default, so the test above never takes
    /// it): a geometric map beside each photometric one, fewer valid pixels than those (its
    /// sources must agree), the cloud fused from the geometric maps and still on the sparse
    /// surface, and a rerun that recomputes neither pass.
    func testTempleRingPreviewWithTheGeometricPass() throws {
        let capture = Repository.datasets.appendingPathComponent("templeRing-12")
        let output = try temporaryDirectory().appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.detail = .preview
        options.noMesh = true
        options.dense.geometricPass = true
        let report = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesRegistered, 12)
        let densePoints = try XCTUnwrap(report.densePoints)
        XCTAssertGreaterThan(densePoints, 10_000, "12 views of 640 x 480")

        let depthFolder = output.appendingPathComponent("work/dense/depth")
        let stamps = try Self.modificationDates(depthFolder)
        XCTAssertEqual(stamps.keys.filter { $0.hasSuffix(".photometric.cvdm") }.count, 12)
        XCTAssertEqual(stamps.keys.filter { $0.hasSuffix(".geometric.cvdm") }.count, 12)
        let photometric = try Self.validDepthPixels(depthFolder, suffix: ".photometric.cvdm")
        let geometric = try Self.validDepthPixels(depthFolder, suffix: ".geometric.cvdm")
        XCTAssertGreaterThan(geometric, photometric / 4, "the pass keeps most of the surface")
        XCTAssertLessThan(geometric, photometric, "and drops what its sources disagree on")
        XCTAssertLessThanOrEqual(densePoints, geometric / options.dense.fusion.minNumViews,
                                 "fused from the geometric maps")

        let model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let sparse = model.points3D.values.map(\.position)
        let low = sparse.reduce(sparse[0]) { pointwiseMin($0, $1) }, high = sparse.reduce(sparse[0]) { pointwiseMax($0, $1) }
        let cloud = try PointCloud.load(output.appendingPathComponent("dense.ply")).points.map { SIMD3<Double>($0) }
        let step = max(1, cloud.count / 1500)
        let distances = stride(from: 0, to: cloud.count, by: step).map { i in
            sparse.reduce(Double.infinity) { min($0, length($1 - cloud[i])) }
        }
        XCTAssertLessThan(try XCTUnwrap(distances.median()) / length(high - low), 0.02,
                          "median distance to the nearest sparse point, relative to the scene")

        let again = try ReconstructionPipeline(input: capture, output: output, options: options, progress: nil).run()
        XCTAssertEqual(again.densePoints, densePoints)
        XCTAssertEqual(try Self.modificationDates(depthFolder), stamps, "no depth map of either pass recomputed")
    }

    private static func validDepthPixels(_ folder: URL, suffix: String) throws -> Int {
        var count = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(suffix) {
            let map = try DepthMap.load(folder.appendingPathComponent(name))
            count += map.withDepths { depths in depths.reduce(0) { $0 + ($1 > 0 && $1.isFinite ? 1 : 0) } }
        }
        return count
    }

    private static func modificationDates(_ folder: URL) throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".cvdm") {
            dates[name] = try modificationDate(folder.appendingPathComponent(name))
        }
        return dates
    }
}
