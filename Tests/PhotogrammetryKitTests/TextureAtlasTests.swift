import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Texturing a plane of known colour seen by rendered pinhole views: the atlas must give the
/// plane's colour back, views hidden by an occluder must not texture what they cannot see, and
/// seam levelling must remove an exposure step between two views.
final class TextureAtlasTests: XCTestCase {
    /// The plane's colour at (x, y): smooth waves, a few pixels per period at the views' distance.
    static func planeColor(_ x: Double, _ y: Double) -> SIMD3<Double> {
        SIMD3(128 + 90 * sin(6 * x) * cos(5 * y), 128 + 90 * sin(4 * y + 1), 128 + 90 * cos(7 * x + 3 * y))
    }

    /// The occluder's colour: flat green, far from the plane's.
    static let occluderColor = SIMD3<Double>(20, 220, 20)

    /// A grid of triangles over z = 0, x and y in -1...1, facing -z (the views), plus, with
    /// `occluder`, a 0.4-wide square at z = -0.8 in front of the centre.
    static func planeMesh(cells: Int = 20, occluder: Bool) throws -> (PointCloud, planeFaces: Int) {
        var points: [SIMD3<Float>] = []
        var triangles: [SIMD3<Int32>] = []
        for j in 0...cells {
            for i in 0...cells {
                points.append(SIMD3(Float(-1 + 2 * Double(i) / Double(cells)), Float(-1 + 2 * Double(j) / Double(cells)), 0))
            }
        }
        func index(_ i: Int, _ j: Int) -> Int32 { Int32(j * (cells + 1) + i) }
        for j in 0..<cells {
            for i in 0..<cells {
                // (a, c, b) winding: the normal (b - a) x (c - a) points to -z.
                triangles.append(SIMD3(index(i, j), index(i, j + 1), index(i + 1, j)))
                triangles.append(SIMD3(index(i + 1, j), index(i, j + 1), index(i + 1, j + 1)))
            }
        }
        let planeFaces = triangles.count
        if occluder {
            let base = Int32(points.count)
            for (x, y) in [(-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2), (0.2, 0.2)] {
                points.append(SIMD3(Float(x), Float(y), -0.8))
            }
            triangles.append(SIMD3(base, base + 2, base + 1))
            triangles.append(SIMD3(base + 1, base + 2, base + 3))
        }
        return (try PointCloud(points: points, triangles: triangles), planeFaces)
    }

    /// Four photos of the plane written into `images` as `view0.png` …, and their poses as an
    /// ARKit app would export them.
    static func writePlanePhotos(into images: URL) throws -> (views: [MVSView], posed: Reconstruction) {
        let views = [view(at: SIMD3(0, 0, -3), lookingAt: .zero),
                     view(at: SIMD3(1.2, 0.3, -2.8), lookingAt: .zero),
                     view(at: SIMD3(-1.1, -0.4, -2.9), lookingAt: .zero),
                     view(at: SIMD3(0.2, 1.2, -2.8), lookingAt: .zero)]
        var posed = Reconstruction()
        posed.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 240, height: 180, params: [200, 200, 120, 90]))
        for (k, view) in views.enumerated() {
            try TestPNG.writeRGB(render(view, occluder: false), width: view.width, height: view.height,
                                 to: images.appendingPathComponent("view\(k).png"))
            posed.addImage(Image(id: ImageID(k + 1), name: "view\(k).png", cameraID: CameraID(1),
                                 camFromWorld: view.camFromWorld, points2D: []))
        }
        return (views, posed)
    }

    /// `model` rendered from `view`'s camera against the plane's photo from there (no occluder):
    /// the PSNR over the pixels the model covers, and how many channel samples that was.
    static func psnrAgainstPhoto(_ model: MeshModel, from view: MVSView) throws -> (psnr: Double, samples: Int) {
        let image = try MeshRenderer(model).render(RenderCamera(
            width: view.width, height: view.height, focalLengths: SIMD2(view.fx, view.fy),
            principalPoint: SIMD2(view.cx, view.cy), camFromWorld: view.camFromWorld))
        let photo = Self.render(view, occluder: false)
        var squared = 0.0, samples = 0
        for i in 0..<(view.width * view.height) where image.pixels[4 * i + 3] != 0 {
            for c in 0..<3 {
                let d = Double(image.pixels[4 * i + c]) - Double(photo[i][c])
                squared += d * d
                samples += 1
            }
        }
        return (10 * log10(255 * 255 / (squared / Double(samples))), samples)
    }

    /// Renders what a view sees (the plane, the occluder in front when present), one ray per
    /// pixel centre, with `offset` added to every channel (an exposure step) and, on the plane,
    /// `gradient` times its y (shading that changes across the surface, as light does).
    static func render(_ view: MVSView, occluder: Bool, offset: Double = 0, gradient: Double = 0) -> [SIMD3<UInt8>] {
        let r = view.camFromWorld.rotation.transposed
        let centre = -(r * view.camFromWorld.translation)
        var pixels: [SIMD3<UInt8>] = []
        for row in 0..<view.height {
            for col in 0..<view.width {
                let d = r * SIMD3((Double(col) + 0.5 - view.cx) / view.fx, (Double(row) + 0.5 - view.cy) / view.fy, 1)
                var color = SIMD3<Double>(0, 0, 0)
                let tOccluder = (-0.8 - centre.z) / d.z
                let hitOccluder = centre + tOccluder * d
                if occluder, tOccluder > 0, abs(hitOccluder.x) <= 0.2, abs(hitOccluder.y) <= 0.2 {
                    color = occluderColor
                } else {
                    let p = centre + (-centre.z / d.z) * d
                    if abs(p.x) <= 1, abs(p.y) <= 1 { color = planeColor(p.x, p.y) + gradient * p.y }
                }
                let shifted = (color + offset).clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 255))
                pixels.append(SIMD3(UInt8(shifted.x.rounded()), UInt8(shifted.y.rounded()), UInt8(shifted.z.rounded())))
            }
        }
        return pixels
    }

    /// A view at `centre` looking at `target`.
    static func view(at centre: SIMD3<Double>, lookingAt target: SIMD3<Double>) -> MVSView {
        MVSView(width: 240, height: 180, fx: 200, fy: 200, cx: 120, cy: 90,
                camFromWorld: MVSTestScene.lookAt(from: centre, to: target))
    }

    func writeViews(_ views: [MVSView], occluder: Bool, offsets: [Double], gradients: [Double]? = nil) throws -> [URL] {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("texture-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return try views.enumerated().map { k, view in
            let url = folder.appendingPathComponent("view\(k).png")
            try TestPNG.writeRGB(Self.render(view, occluder: occluder, offset: offsets[k], gradient: gradients?[k] ?? 0),
                                 width: view.width,
                                 height: view.height, to: url)
            return url
        }
    }

    /// The atlas colour at barycentric position `w` of face `f`.
    func atlasColor(_ atlas: TextureAtlas, page: [UInt8], uvs: [SIMD2<Float>], face f: Int, _ w: SIMD3<Double>) -> SIMD3<Double> {
        let uv = Double(uvs[3 * f].x) * w.x + Double(uvs[3 * f + 1].x) * w.y + Double(uvs[3 * f + 2].x) * w.z
        let vv = Double(uvs[3 * f].y) * w.x + Double(uvs[3 * f + 1].y) * w.y + Double(uvs[3 * f + 2].y) * w.z
        let size = atlas.pageSize
        let x = min(max(Int(uv * Double(size)), 0), size - 1), y = min(max(Int(vv * Double(size)), 0), size - 1)
        let base = 3 * (y * size + x)
        return SIMD3(Double(page[base]), Double(page[base + 1]), Double(page[base + 2]))
    }

    /// Per plane face, the atlas colour minus the plane's at three inner points.
    func colorErrors(_ atlas: TextureAtlas, mesh: PointCloud, planeFaces: Int) -> [[SIMD3<Double>]] {
        let pages = (0..<atlas.pageCount).map { atlas.page($0) }, facePages = atlas.facePages
        let uvs = atlas.uvs, points = mesh.points, triangles = mesh.triangles
        return (0..<planeFaces).map { f in
            let page = pages[facePages[f]]
            let corners = [triangles[f].x, triangles[f].y, triangles[f].z].map { SIMD3<Double>(points[Int($0)]) }
            return [SIMD3(0.6, 0.2, 0.2), SIMD3(0.2, 0.6, 0.2), SIMD3(0.2, 0.2, 0.6)].map { w in
                let p = corners[0] * w.x + corners[1] * w.y + corners[2] * w.z
                return atlasColor(atlas, page: page, uvs: uvs, face: f, w) - Self.planeColor(p.x, p.y)
            }
        }
    }

    func testPlaneTextureIsRecoveredAndOccludedViewsAreNotUsed() throws {
        let views = [Self.view(at: SIMD3(0, 0, -3), lookingAt: .zero),
                     Self.view(at: SIMD3(1.2, 0.3, -2.8), lookingAt: .zero),
                     Self.view(at: SIMD3(-1.1, -0.4, -2.9), lookingAt: .zero),
                     Self.view(at: SIMD3(0.2, 1.2, -2.8), lookingAt: .zero)]
        let (mesh, planeFaces) = try Self.planeMesh(occluder: true)
        let images = try writeViews(views, occluder: true, offsets: [0, 0, 0, 0])
        var options = TextureOptions()
        options.pageSize = 1024
        let atlas = try TextureAtlas.make(positions: mesh.points, triangles: mesh.triangles, colors: nil, views: views,
                                              imageURLs: images, options: options)

        let faceViews = atlas.faceViews
        XCTAssertEqual(faceViews.filter { $0 < 0 }.count, 0, "every face is seen by some view")
        XCTAssertLessThan(atlas.chartCount, 40, "smoothing keeps charts large (\(atlas.chartCount) for \(faceViews.count) faces)")
        XCTAssertEqual(atlas.scale, options.maxTexelPerPixel, accuracy: 1e-9, "a small mesh fits the page at the finest sampling")

        // No plane face behind the occluder, as one view sees it, takes its colour from that view.
        let points = mesh.points, triangles = mesh.triangles
        var hiddenFaces = 0
        for f in 0..<planeFaces {
            let centroid = (SIMD3<Double>(points[Int(triangles[f].x)]) + SIMD3<Double>(points[Int(triangles[f].y)])
                            + SIMD3<Double>(points[Int(triangles[f].z)])) / 3
            let v = faceViews[f]
            let camera = views[v].camFromWorld
            let centre = -(camera.rotation.transposed * camera.translation)
            let t = (-0.8 - centre.z) / (centroid.z - centre.z)
            let crossing = centre + t * (centroid - centre)
            if abs(crossing.x) < 0.19, abs(crossing.y) < 0.19 { hiddenFaces += 1 }
        }
        XCTAssertEqual(hiddenFaces, 0, "faces textured from a view that the occluder blocks")

        // The plane's colour comes back: PSNR over three points per face.
        let errors = colorErrors(atlas, mesh: mesh, planeFaces: planeFaces).flatMap { $0 }
        let mse = errors.map { ($0 * $0).sum() / 3 }.reduce(0, +) / Double(errors.count)
        let psnr = 10 * log10(255 * 255 / mse)
        XCTAssertGreaterThan(psnr, 40, "texture PSNR \(psnr) dB")
    }

    func testSeamLevellingRemovesAnExposureStep() throws {
        // Two views, each seeing most of one half; the right one 30 levels brighter.
        let views = [Self.view(at: SIMD3(-1.0, 0, -1.6), lookingAt: SIMD3(-0.5, 0, 0)),
                     Self.view(at: SIMD3(1.0, 0, -1.6), lookingAt: SIMD3(0.5, 0, 0))]
        let (mesh, planeFaces) = try Self.planeMesh(occluder: false)
        let images = try writeViews(views, occluder: false, offsets: [0, 30])
        var options = TextureOptions()
        options.pageSize = 1024
        options.minViewCos = 0.3

        func step(_ levelling: TextureOptions.SeamLevelling) throws -> Double {
            options.seamLevelling = levelling
            let atlas = try TextureAtlas.make(positions: mesh.points, triangles: mesh.triangles, colors: nil, views: views,
                                              imageURLs: images, options: options)
            let faceViews = atlas.faceViews
            let errors = colorErrors(atlas, mesh: mesh, planeFaces: planeFaces)
            func meanError(_ view: Int) -> Double {
                let e = (0..<planeFaces).filter { faceViews[$0] == view }.flatMap { errors[$0] }.map { $0.sum() / 3 }
                XCTAssertGreaterThan(e.count, 60, "view \(view) textures part of the plane")
                return e.reduce(0, +) / Double(max(1, e.count))
            }
            return meanError(1) - meanError(0)
        }
        let before = try step(.off)
        XCTAssertEqual(before, 30, accuracy: 3, "the step as rendered")
        for levelling in [TextureOptions.SeamLevelling.perView, .local] {
            let after = try step(levelling)
            XCTAssertLessThan(abs(after), 3, "exposure step after levelling \(levelling): \(after)")
        }
    }

    func testLocalSeamLevellingRemovesAShadingStepThatVariesAlongTheSeam() throws {
        // The right view sees the plane 40 levels darker at y = -1 and 40 brighter at y = 1: no
        // one offset per view can level that seam (its mean step is 0), a local correction can.
        let views = [Self.view(at: SIMD3(-1.0, 0, -1.6), lookingAt: SIMD3(-0.5, 0, 0)),
                     Self.view(at: SIMD3(1.0, 0, -1.6), lookingAt: SIMD3(0.5, 0, 0))]
        let (mesh, planeFaces) = try Self.planeMesh(occluder: false)
        let images = try writeViews(views, occluder: false, offsets: [0, 0], gradients: [0, 40])
        var options = TextureOptions()
        options.pageSize = 1024
        options.minViewCos = 0.3
        let triangles = mesh.triangles

        /// The mean absolute step across the seam: per pair of faces sharing an edge, one textured
        /// from each view, the difference of their mean colour errors.
        func seamStep(_ levelling: TextureOptions.SeamLevelling) throws -> Double {
            options.seamLevelling = levelling
            let atlas = try TextureAtlas.make(positions: mesh.points, triangles: triangles, colors: nil, views: views,
                                              imageURLs: images, options: options)
            let faceViews = atlas.faceViews
            let errors = colorErrors(atlas, mesh: mesh, planeFaces: planeFaces).map { e in
                e.map { $0.sum() / 3 }.reduce(0, +) / Double(e.count)
            }
            var faceOfEdge: [SIMD2<Int32>: Int] = [:]
            var steps: [Double] = []
            for f in 0..<planeFaces {
                let t = triangles[f]
                for (a, b) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] {
                    let edge = SIMD2(min(a, b), max(a, b))
                    if let g = faceOfEdge[edge] {
                        if faceViews[f] == 1, faceViews[g] == 0 { steps.append(abs(errors[f] - errors[g])) }
                        if faceViews[f] == 0, faceViews[g] == 1 { steps.append(abs(errors[g] - errors[f])) }
                    } else {
                        faceOfEdge[edge] = f
                    }
                }
            }
            XCTAssertGreaterThan(steps.count, 15, "the seam runs the plane's height")
            return steps.reduce(0, +) / Double(max(1, steps.count))
        }
        let perView = try seamStep(.perView)
        let local = try seamStep(.local)
        XCTAssertGreaterThan(perView, 12, "the step per-view offsets leave")
        XCTAssertLessThan(local, 4, "the step local levelling leaves (per-view offsets: \(perView))")
    }

    func testAMeshNoViewSeesTakesItsVertexColoursUnderEveryLevelling() throws {
        // No views at all: every face is its own cell in the vertex colours, and local levelling
        // has no chart to solve for.
        let (mesh, _) = try Self.planeMesh(occluder: false)
        let colors = Array(repeating: SIMD3<UInt8>(200, 100, 50), count: mesh.points.count)
        for levelling in [TextureOptions.SeamLevelling.off, .perView, .local] {
            var options = TextureOptions()
            options.pageSize = 256
            options.seamLevelling = levelling
            let atlas = try TextureAtlas.make(positions: mesh.points, triangles: mesh.triangles, colors: colors,
                                              views: [], imageURLs: [], options: options)
            XCTAssertTrue(atlas.faceViews.allSatisfy { $0 == -1 }, "\(levelling)")
            let page = atlas.page(0), uvs = atlas.uvs
            let centre = atlasColor(atlas, page: page, uvs: uvs, face: 7, SIMD3(1.0 / 3, 1.0 / 3, 1.0 / 3))
            XCTAssertEqual(centre, SIMD3(200, 100, 50), "\(levelling)")
        }
    }

    func testTexturedModelSplitsVerticesAtChartBorders() throws {
        let views = [Self.view(at: SIMD3(-1.0, 0, -1.6), lookingAt: SIMD3(-0.5, 0, 0)),
                     Self.view(at: SIMD3(1.0, 0, -1.6), lookingAt: SIMD3(0.5, 0, 0))]
        let (mesh, _) = try Self.planeMesh(occluder: false)
        let images = try writeViews(views, occluder: false, offsets: [0, 0])
        var options = TextureOptions()
        options.pageSize = 512
        let atlas = try TextureAtlas.make(positions: mesh.points, triangles: mesh.triangles, colors: nil, views: views,
                                          imageURLs: images, options: options)
        XCTAssertGreaterThan(atlas.chartCount, 1, "two views make at least two charts")
        let points = mesh.points
        let model = MeshModel(positions: points, normals: Array(repeating: SIMD3(0, 0, -1), count: points.count),
                              colors: Array(repeating: SIMD3(128, 128, 128), count: points.count), triangles: mesh.triangles,
                              lengthUnit: .metres)
        let textured = try model.textured(by: atlas, jpegQuality: 0)
        try textured.validate()
        XCTAssertEqual(textured.lengthUnit, .metres, "texturing keeps the mesh's unit")
        XCTAssertEqual(textured.triangles.count, model.triangles.count)
        XCTAssertGreaterThan(textured.positions.count, model.positions.count, "vertices on chart borders are split")
        XCTAssertLessThan(textured.positions.count, 3 * model.triangles.count, "vertices inside a chart are shared")
        let uvs = atlas.uvs
        for (f, (original, split)) in zip(model.triangles, textured.triangles).enumerated() {
            for k in 0..<3 {
                XCTAssertEqual(textured.positions[Int(split[k])], model.positions[Int(original[k])])
                XCTAssertEqual(textured.uvs![Int(split[k])].x, uvs[3 * f + k].x)
                XCTAssertEqual(textured.uvs![Int(split[k])].y, 1 - uvs[3 * f + k].y, "v up, as the exporters take it")
            }
        }
        let texture = try XCTUnwrap(textured.material.texture)
        XCTAssertEqual(texture.fileName, "texture_0.png")
        XCTAssertEqual(Array(texture.data.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG")
    }

    func testPagesBeyondTheFirstKeepTheViewsResolution() throws {
        // The plane covers about 130 x 130 pixels of each view: one 160² page holds its charts only
        // scaled down (0.6 texels per pixel), several hold them at one texel per pixel.
        let views = [Self.view(at: SIMD3(0, 0, -3), lookingAt: .zero),
                     Self.view(at: SIMD3(1.2, 0.3, -2.8), lookingAt: .zero),
                     Self.view(at: SIMD3(-1.1, -0.4, -2.9), lookingAt: .zero)]
        let (mesh, planeFaces) = try Self.planeMesh(occluder: false)
        let images = try writeViews(views, occluder: false, offsets: [0, 0, 0])
        var options = TextureOptions()
        options.pageSize = 160
        options.paddingPx = 2
        options.maxTexelPerPixel = 1  // the sizes above are in texels at one per pixel
        func atlas(maxPages: Int) throws -> (TextureAtlas, psnr: Double) {
            options.maxPages = maxPages
            let atlas = try TextureAtlas.make(positions: mesh.points, triangles: mesh.triangles, colors: nil, views: views,
                                              imageURLs: images, options: options)
            let errors = colorErrors(atlas, mesh: mesh, planeFaces: planeFaces).flatMap { $0 }
            let mse = errors.map { ($0 * $0).sum() / 3 }.reduce(0, +) / Double(errors.count)
            return (atlas, 10 * log10(255 * 255 / mse))
        }
        let (one, onePSNR) = try atlas(maxPages: 1)
        let (several, severalPSNR) = try atlas(maxPages: 8)
        XCTAssertEqual(one.pageCount, 1)
        XCTAssertLessThan(one.scale, 0.9, "one small page holds the charts only scaled down")
        XCTAssertGreaterThan(several.pageCount, 1)
        XCTAssertLessThanOrEqual(several.pageCount, 8)
        XCTAssertEqual(several.scale, 1, accuracy: 1e-9, "enough pages keep one texel per pixel")
        XCTAssertEqual(Set(several.facePages), Set(0..<several.pageCount), "every page holds faces")
        XCTAssertGreaterThan(severalPSNR, 35, "texture PSNR \(severalPSNR) dB over \(several.pageCount) pages")
        XCTAssertGreaterThan(severalPSNR, onePSNR + 1, "full resolution beats the scaled-down page (\(onePSNR) dB)")

        // The model: one material per page, each triangle on its face's page, in every format.
        let points = mesh.points
        let model = MeshModel(positions: points, normals: Array(repeating: SIMD3(0, 0, -1), count: points.count),
                              colors: Array(repeating: SIMD3(128, 128, 128), count: points.count), triangles: mesh.triangles)
        let textured = try model.textured(by: several, jpegQuality: 0)
        try textured.validate()
        XCTAssertEqual(textured.materials.map(\.name), (0..<several.pageCount).map { "surface_\($0)" })
        XCTAssertEqual(textured.textures.map(\.fileName), (0..<several.pageCount).map { "texture_\($0).png" })
        XCTAssertEqual(textured.materialOfTriangle, several.facePages.map { Int32($0) })
        let facesPerPage = textured.trianglesByMaterial.map(\.count)
        let folder = try makeBridgeTestDirectory(self)
        for format in ModelFormat.allCases {
            let url = folder.appendingPathComponent("pages.\(format.rawValue)")
            try ModelExporter.write(textured, to: url)
            let stats = try ModelStats.read(url)
            XCTAssertEqual(stats.triangles, textured.triangles.count, "\(format)")
            XCTAssertEqual(stats.textures.count, format == .stl ? 0 : several.pageCount, "\(format): texture pages")
            guard format != .stl else { continue }
            let read = try ModelReader.read(url)
            XCTAssertEqual(read.trianglesByMaterial.map(\.count), facesPerPage, "\(format): faces per page read back")
            XCTAssertEqual(read.textures.count, several.pageCount, "\(format)")
        }

        // Rendered from the first view, the pages give the view's own image back (resampled twice,
        // view pixels into texels and texels into pixels: about 29.6 dB, as from one 256² page).
        let view = views[0]
        let camera = RenderCamera(width: view.width, height: view.height, focalLengths: SIMD2(view.fx, view.fy),
                                  principalPoint: SIMD2(view.cx, view.cy), camFromWorld: view.camFromWorld)
        for url in ["pages.glb", "pages.usdz", "pages.obj", "pages.ply"].map({ folder.appendingPathComponent($0) }) {
            let rendered = try MeshRenderer(ModelReader.read(url)).render(camera)
            let truth = Self.render(view, occluder: false)
            var squared = 0.0, covered = 0
            for (i, expected) in truth.enumerated() where rendered.pixels[4 * i + 3] == 255 {
                for k in 0..<3 { squared += pow(Double(rendered.pixels[4 * i + k]) - Double(expected[k]), 2) }
                covered += 1
            }
            XCTAssertGreaterThan(covered, 15_000, url.lastPathComponent)
            let psnr = 10 * log10(255 * 255 / (squared / Double(3 * max(1, covered))))
            XCTAssertGreaterThan(psnr, 28, "\(url.lastPathComponent): render PSNR \(psnr) dB")
        }
    }
}
