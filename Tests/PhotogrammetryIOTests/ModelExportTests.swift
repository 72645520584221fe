import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// Each exporter round-trips through ``ModelStats`` (counts, box), and the files load in the
/// tools others use: the USDZ passes USD's ARKit compliance checker, GLB and OBJ load in trimesh,
/// with one material per texture page when there are several.
final class ModelExportTests: XCTestCase {
    let model = SyntheticSurface.icosphereModel(levels: 3)  // 642 vertices, 1280 triangles, radius 0.5

    func assertRoundTrip(_ stats: ModelStats, _ model: MeshModel, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(stats.vertices, model.positions.count, "vertices", file: file, line: line)
        XCTAssertEqual(stats.triangles, model.triangles.count, "triangles", file: file, line: line)
        let want = model.bounds!
        let got = stats.bounds ?? BoundingBox(min: .zero, max: .zero)
        for k in 0..<3 {
            XCTAssertEqual(got.min[k], want.min[k], accuracy: 1e-5, file: file, line: line)
            XCTAssertEqual(got.max[k], want.max[k], accuracy: 1e-5, file: file, line: line)
        }
    }

    func testEveryFormatRoundTripsThroughStats() throws {
        let folder = try makeBridgeTestDirectory(self)
        for format in ModelFormat.allCases {
            let url = folder.appendingPathComponent("model.\(format.rawValue)")
            try ModelExporter.write(model, to: url)
            let stats = try ModelStats.read(url)
            XCTAssertEqual(stats.format, format)
            assertRoundTrip(stats, model)
            XCTAssertEqual(stats.textures, [])
            XCTAssertEqual(stats.fileBytes, try Data(contentsOf: url).count)
            XCTAssertEqual(stats.size.x, 1, accuracy: 1e-5, "\(format): a sphere of radius 0.5 is 1 wide")
        }
        // The model's unit is unknown (no metric source), and every format says so.
        for format in ModelFormat.allCases {
            XCTAssertNil(try ModelStats.read(folder.appendingPathComponent("model.\(format.rawValue)")).metersPerUnit, format.rawValue)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names, ["model.glb", "model.mtl", "model.obj", "model.ply", "model.stl", "model.usdz"],
                       "no temporary files left behind")
        let json = try ModelStatsTable.json([try ModelStats.read(folder.appendingPathComponent("model.glb"))])
        let row = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
        XCTAssertEqual(row["triangles"] as? Int, 1280)
        XCTAssertEqual(row["texture_pages"] as? Int, 0)
        XCTAssertEqual(row["size_unit"] as? String, "unknown")
        XCTAssertTrue(ModelStatsTable.text([try ModelStats.read(folder.appendingPathComponent("model.stl"))]).contains("1280"))
    }

    func testUSDZIsAStoredZipWithEveryFile64ByteAligned() throws {
        var textured = model
        textured.uvs = model.positions.map { SIMD2(0.5 + $0.x, 0.5 + $0.y) }
        textured.material.texture = .init(data: TestPNG.encoded(TestPNG.rows(width: 8, height: 4, channels: 3) { x, y in [UInt8(x * 30), UInt8(y * 60), 128] }, width: 8, height: 4, colorType: 2),
                                          fileName: "texture_0.png", width: 8, height: 4)
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("textured.usdz")
        try ModelExporter.write(textured, to: url)
        let data = try Data(contentsOf: url)
        let entries = try StoredZip.entries(of: data, name: url.path)
        XCTAssertEqual(entries.map(\.name), ["model.usdc", "0/texture_0.png"], "usd-core's binary layer, the image as Apple's tools place it")
        // Every local header's data offset is a multiple of 64 (AR Quick Look maps them in place).
        let bytes = [UInt8](data)
        var offset = 0, found = 0
        while offset + 30 <= bytes.count, bytes[offset..<offset + 4].elementsEqual([0x50, 0x4B, 0x03, 0x04]) {
            XCTAssertEqual(bytes[offset + 8], 0, "stored, not deflated")
            let size = Int(bytes[offset + 18]) | Int(bytes[offset + 19]) << 8 | Int(bytes[offset + 20]) << 16 | Int(bytes[offset + 21]) << 24
            let dataStart = offset + 30 + (Int(bytes[offset + 26]) | Int(bytes[offset + 27]) << 8) + (Int(bytes[offset + 28]) | Int(bytes[offset + 29]) << 8)
            XCTAssertEqual(dataStart % 64, 0)
            found += 1
            offset = dataStart + size
        }
        XCTAssertEqual(found, 2)
        let stats = try ModelStats.read(url)
        assertRoundTrip(stats, textured)
        XCTAssertEqual(stats.textures, [.init(width: 8, height: 4)])
        // The textured variant is ARKit-compliant too (the material the texture atlas will use).
        try assertARKitCompliant(url)
        let glb = url.deletingPathExtension().appendingPathExtension("glb")
        try ModelExporter.write(textured, to: glb)
        XCTAssertEqual(try ModelStats.read(glb).textures, [.init(width: 8, height: 4)])
        let obj = url.deletingPathExtension().appendingPathExtension("obj")
        try ModelExporter.write(textured, to: obj)
        XCTAssertEqual(try ModelStats.read(obj).textures, [.init(width: 8, height: 4)])
    }

    func testUSDZPassesTheARKitComplianceChecker() throws {
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("model.usdz")
        try ModelExporter.write(model, to: url)
        try assertARKitCompliant(url)
    }

    func testGLBAndOBJLoadInTrimeshWithTheirCounts() throws {
        let folder = try makeBridgeTestDirectory(self)
        for name in ["model.glb", "model.obj"] { try ModelExporter.write(model, to: folder.appendingPathComponent(name)) }
        let output = try PythonCheck.run("""
            import trimesh, numpy
            for name in ['model.glb', 'model.obj']:
                m = trimesh.load(\(pythonString(folder.path)) + '/' + name, force='mesh', process=False)
                print(name, len(m.vertices), len(m.faces), round(float(m.extents[0]), 4), m.is_watertight, m.is_winding_consistent)
                if name.endswith('.obj'): print('OBJ colours', len(m.vertex_attributes['color']))
            """, modules: ["trimesh"])
        guard let output else { return }
        XCTAssertTrue(output.contains("model.glb 642 1280 1.0 True True"), output)
        XCTAssertTrue(output.contains("model.obj 642 1280 1.0 True True"), output)
        XCTAssertTrue(output.contains("OBJ colours 642"), output)
    }

    /// The icosphere on two texture pages: triangles left of x = 0 on the first (red), the rest
    /// on the second (blue).
    func twoPageModel() -> MeshModel {
        var textured = model
        textured.uvs = model.positions.map { SIMD2(0.5 + $0.x, 0.5 + $0.y) }
        func page(_ rgb: [UInt8], _ n: Int) -> MeshMaterial {
            MeshMaterial(name: "surface_\(n)", texture: .init(
                data: TestPNG.encoded(TestPNG.rows(width: 8, height: 8, channels: 3) { _, _ in rgb }, width: 8, height: 8, colorType: 2),
                fileName: "texture_\(n).png", width: 8, height: 8))
        }
        textured.materials = [page([200, 30, 30], 0), page([30, 30, 200], 1)]
        textured.materialOfTriangle = SyntheticSurface.centroids(model).map { $0.x < 0 ? 0 : 1 }
        return textured
    }

    func testTwoPagesPassTheCheckersOfOtherTools() throws {
        let textured = twoPageModel()
        let perPage = textured.trianglesByMaterial.map(\.count)
        XCTAssertEqual(perPage.reduce(0, +), 1280)
        XCTAssertTrue(perPage.allSatisfy { $0 > 500 }, "\(perPage)")
        let folder = try makeBridgeTestDirectory(self)
        for format in ModelFormat.allCases { try ModelExporter.write(textured, to: folder.appendingPathComponent("pages.\(format.rawValue)")) }
        try assertARKitCompliant(folder.appendingPathComponent("pages.usdz"))
        let output = try PythonCheck.run("""
            import trimesh, numpy
            from pxr import Usd, UsdGeom, UsdShade
            folder = \(pythonString(folder.path)) + '/'
            stage = Usd.Stage.Open(folder + 'pages.usdz')
            mesh = stage.GetPrimAtPath('/Model/Surface')
            for subset in UsdGeom.Subset.GetAllGeomSubsets(UsdGeom.Imageable(mesh)):
                material = UsdShade.MaterialBindingAPI(subset.GetPrim()).ComputeBoundMaterial()[0]
                print('USD subset', len(subset.GetIndicesAttr().Get()), material.GetPath().name)
            for name in ['pages.glb', 'pages.obj', 'pages.ply']:
                scene = trimesh.load(folder + name, process=False)
                geometries = list(scene.geometry.values()) if hasattr(scene, 'geometry') else [scene]
                for g in sorted(geometries, key=lambda g: -len(g.faces)):
                    material = getattr(g.visual, 'material', None)
                    image = getattr(material, 'image', None) or getattr(material, 'baseColorTexture', None)
                    uv = g.visual.uv if hasattr(g.visual, 'uv') and g.visual.uv is not None else []
                    colour = numpy.asarray(image.convert('RGB'))[4, 4].tolist() if image is not None else None
                    print(name, len(g.faces), len(uv) == len(g.vertices), colour)
            """, modules: ["trimesh", "pxr"])
        guard let output else { return }
        for (faces, name) in zip(perPage, ["surface_0", "surface_1"]) {
            XCTAssertTrue(output.contains("USD subset \(faces) \(name)\n"), output)
        }
        for name in ["pages.glb", "pages.obj"] {
            XCTAssertTrue(output.contains("\(name) \(perPage[0]) True [200, 30, 30]"), output)
            XCTAssertTrue(output.contains("\(name) \(perPage[1]) True [30, 30, 200]"), output)
        }
        // trimesh takes one texture per PLY (its `TextureFile` comments name both), with the UVs.
        XCTAssertTrue(output.contains("pages.ply 1280 True ["), output)
    }

    func testOtherToolsFilesAndBadFilesGiveOneLineErrors() throws {
        let folder = try makeBridgeTestDirectory(self)
        // An ascii STL and an OBJ with quads, as other tools write them.
        try Data("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 2 0 0\nvertex 0 3 0\nendloop\nendfacet\nendsolid x\n".utf8)
            .write(to: folder.appendingPathComponent("ascii.stl"))
        let ascii = try ModelStats.read(folder.appendingPathComponent("ascii.stl"))
        XCTAssertEqual([ascii.vertices, ascii.triangles], [3, 1])
        XCTAssertEqual(ascii.size, SIMD3(2, 3, 0))
        try Data("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/1 4/1\n".utf8).write(to: folder.appendingPathComponent("quad.obj"))
        let quad = try ModelStats.read(folder.appendingPathComponent("quad.obj"))
        XCTAssertEqual([quad.vertices, quad.triangles], [4, 2])
        // A USDZ whose binary layer is junk: refused by usd-core, one line naming the file.
        let usdc = folder.appendingPathComponent("binary.usdz")
        try StoredZip.archive([.init(name: "model.usdc", data: Data("PXR-USDC".utf8) + Data(count: 88))]).write(to: usdc)
        XCTAssertThrowsError(try ModelStats.read(usdc)) { error in
            XCTAssertTrue("\(error)".hasPrefix(usdc.path + ": "), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"))
        }
        for (name, contents) in [("junk.glb", "not a glb at all"), ("junk.usdz", "PK nothing"), ("junk.stl", "garbage"),
                                 ("junk.ply", "ply\nformat nonsense\n"), ("empty.obj", "")] {
            let url = folder.appendingPathComponent(name)
            try Data(contents.utf8).write(to: url)
            XCTAssertThrowsError(try ModelStats.read(url), name) { error in
                XCTAssertTrue("\(error)".hasPrefix(url.path), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try ModelStats.read(folder.appendingPathComponent("missing.glb")))
        XCTAssertThrowsError(try ModelExporter.write(model, to: folder.appendingPathComponent("model.fbx")))
        var broken = model
        broken.triangles.append(SIMD3(0, 1, 9999))
        XCTAssertThrowsError(try ModelExporter.write(broken, to: folder.appendingPathComponent("broken.glb")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("broken.glb").path))
    }

    private func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}

extension XCTestCase {
    /// Asserts that our model USDZ at `url` (642 points, 1280 triangles, Y up, metres) passes
    /// usd-core's ARKit compliance checker; nothing when usd-core is absent.
    func assertARKitCompliant(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let output = try PythonCheck.run("""
            from pxr import UsdUtils, Usd, UsdGeom
            checker = UsdUtils.ComplianceChecker(arkit=True)
            checker.CheckCompliance(\(BadInputs.python(url.path)))
            problems = checker.GetErrors() + checker.GetFailedChecks()
            print('PROBLEMS', len(problems))
            for p in problems: print(p)
            stage = Usd.Stage.Open(\(BadInputs.python(url.path)))
            print('UP', UsdGeom.GetStageUpAxis(stage), 'MPU', UsdGeom.GetStageMetersPerUnit(stage))
            mesh = UsdGeom.Mesh(stage.GetPrimAtPath('/Model/Surface'))
            print('COUNTS', len(mesh.GetPointsAttr().Get()), len(mesh.GetFaceVertexCountsAttr().Get()))
            """, modules: ["pxr"], file: file, line: line)
        guard let output else { return }
        XCTAssertTrue(output.contains("PROBLEMS 0\n"), output, file: file, line: line)
        XCTAssertTrue(output.contains("UP Y MPU 1.0"), output, file: file, line: line)
        XCTAssertTrue(output.contains("COUNTS 642 1280"), output, file: file, line: line)
    }
}
