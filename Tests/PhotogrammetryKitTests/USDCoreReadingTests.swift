import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// USD files as other tools write them (binary layers, prims under transformed Xforms, Z up,
/// centimetres, many prims), made here by usd-core itself, read by `stats`, `render` and
/// `texture` through OpenUSD as one mesh in metres, Y up; and the line and the text reader when
/// usd-core is missing.
final class USDCoreReadingTests: XCTestCase {
    /// Runs the built program.
    private func run(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120,
                     file: StaticString = #filePath, line: UInt = #line) throws -> BuiltProgram.Outcome {
        try BuiltProgram.run(arguments, environment: environment, timeout: timeout, logs: try makeBridgeTestDirectory(self),
                             file: file, line: line)
    }

    private func statsRow(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let outcome = try run(["stats", "--json", url.path], file: file, line: line)
        XCTAssertEqual(outcome.status, 0, outcome.standardError, file: file, line: line)
        XCTAssertEqual(outcome.standardError, "", "no warning: usd-core read it", file: file, line: line)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [[String: Any]])
        return try XCTUnwrap(rows.first)
    }

    /// A Python list of `points`.
    private func pythonPoints(_ points: [SIMD3<Float>]) -> String {
        "[" + points.map { "(\($0.x), \($0.y), \($0.z))" }.joined(separator: ", ") + "]"
    }

    // MARK: - A binary, Z-up, centimetre USDZ with a transformed, textured prim

    /// TextureAtlasTests' plane (2 m square at z = 0, Y up, metres) as a binary USDZ laid out as
    /// another tool might: Z up, centimetres, its Mesh under an Xform that translates, rotates
    /// and scales, face-varying `st` and a 16 x 8 texture. usd-core computes the local points
    /// that put the plane back where it was, so a reader that misses the transform, the unit or
    /// the up axis puts it elsewhere.
    private func planeUSDZ(in folder: URL) throws -> (URL, MeshModel)? {
        let (plane, _) = try TextureAtlasTests.planeMesh(occluder: false)
        let url = folder.appendingPathComponent("plane.usdz")
        let faces = plane.triangles.map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: ", ")
        let output = try PythonCheck.run("""
            import os
            from pxr import Usd, UsdGeom, UsdShade, Sdf, UsdUtils, Gf
            from PIL import Image
            folder = \(pythonString(folder.path))
            Image.new('RGB', (16, 8), (40, 160, 90)).save(os.path.join(folder, 'quad.png'))
            stage = Usd.Stage.CreateNew(os.path.join(folder, 'plane.usdc'))
            UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
            UsdGeom.SetStageMetersPerUnit(stage, 0.01)
            root = UsdGeom.Xform.Define(stage, '/Root')
            stage.SetDefaultPrim(root.GetPrim())
            holder = UsdGeom.Xform.Define(stage, '/Root/Holder')
            holder.AddTranslateOp().Set(Gf.Vec3d(30, -20, 50))
            holder.AddRotateXYZOp().Set(Gf.Vec3f(20, -35, 60))
            holder.AddScaleOp().Set(Gf.Vec3f(2, 2, 2))
            world = holder.ComputeLocalToWorldTransform(Usd.TimeCode.Default())
            local = world.GetInverse()
            # Y-up metres (x, y, z) is Z-up (x, -z, y); then centimetres; then into the prim's frame.
            points = [local.Transform(Gf.Vec3d(100 * x, -100 * z, 100 * y)) for (x, y, z) in \(pythonPoints(plane.points))]
            mesh = UsdGeom.Mesh.Define(stage, '/Root/Holder/Plane')
            mesh.CreatePointsAttr([Gf.Vec3f(*p) for p in points])
            indices = [\(faces)]
            mesh.CreateFaceVertexCountsAttr([3] * (len(indices) // 3))
            mesh.CreateFaceVertexIndicesAttr(indices)
            mesh.CreateSubdivisionSchemeAttr('none')
            flat = \(pythonPoints(plane.points))
            st = UsdGeom.PrimvarsAPI(mesh).CreatePrimvar('st', Sdf.ValueTypeNames.TexCoord2fArray, UsdGeom.Tokens.faceVarying)
            st.Set([((flat[i][0] + 1) / 2, (flat[i][1] + 1) / 2) for i in indices])
            material = UsdShade.Material.Define(stage, '/Root/Looks')
            surface = UsdShade.Shader.Define(stage, '/Root/Looks/Surface')
            surface.CreateIdAttr('UsdPreviewSurface')
            reader = UsdShade.Shader.Define(stage, '/Root/Looks/St')
            reader.CreateIdAttr('UsdPrimvarReader_float2')
            reader.CreateInput('varname', Sdf.ValueTypeNames.String).Set('st')
            texture = UsdShade.Shader.Define(stage, '/Root/Looks/Image')
            texture.CreateIdAttr('UsdUVTexture')
            texture.CreateInput('file', Sdf.ValueTypeNames.Asset).Set('quad.png')
            texture.CreateInput('st', Sdf.ValueTypeNames.Float2).ConnectToSource(reader.ConnectableAPI(), 'result')
            surface.CreateInput('diffuseColor', Sdf.ValueTypeNames.Color3f).ConnectToSource(texture.ConnectableAPI(), 'rgb')
            material.CreateSurfaceOutput().ConnectToSource(surface.ConnectableAPI(), 'surface')
            UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(material)
            stage.GetRootLayer().Save()
            assert UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(os.path.join(folder, 'plane.usdc')), \(pythonString(url.path)))
            print('OK')
            """, modules: ["pxr", "PIL"])
        guard output?.contains("OK") == true else { return nil }
        let grey = [SIMD3<UInt8>](repeating: SIMD3(128, 128, 128), count: plane.points.count)
        return (url, MeshModel(positions: plane.points, normals: Array(repeating: SIMD3(0, 0, -1), count: plane.points.count),
                               colors: grey, triangles: plane.triangles))
    }

    func testBinaryZUpCentimetreUSDZIsReadInMetresYUpByStatsRenderAndTexture() throws {
        let folder = try makeBridgeTestDirectory(self)
        guard let (url, plane) = try planeUSDZ(in: folder) else { return }
        let bytes = try Data(contentsOf: url)
        let layer = try XCTUnwrap(try StoredZip.entries(of: bytes, name: url.path).first)
        XCTAssertTrue(layer.data.starts(with: Array("PXR-USDC".utf8)), "the layer is binary")

        // stats: the file's 441 points and 800 triangles, 2 m square in x and y (z ≈ 0), one 16 x 8 texture.
        let row = try statsRow(url)
        XCTAssertEqual(row["vertices"] as? Int, 441)
        XCTAssertEqual(row["triangles"] as? Int, 800)
        XCTAssertEqual(row["size_unit"] as? String, "m")
        let size = try XCTUnwrap(row["size"] as? [Double])
        for (got, want) in zip(size, [2.0, 2.0, 0.0]) { XCTAssertEqual(got, want, accuracy: 1e-4, "\(size)") }
        XCTAssertEqual(row["texture_sizes"] as? [[Int]], [[16, 8]])

        // The reader: the plane back where it was, in metres, its texture coordinates on every vertex.
        let model = try ModelReader.read(url)
        XCTAssertEqual(model.triangles.count, 800)
        XCTAssertEqual(model.positions.count, 441, "face-varying st equal at each point: one vertex a point")
        XCTAssertEqual(model.lengthUnit, .metres)
        XCTAssertEqual(model.material.texture?.width, 16)
        var farthest = 0.0
        for (point, vertex) in zip(model.positions, model.positions.indices) {
            let nearest = plane.positions.map { length(SIMD3<Double>($0 - point)) }.min()!
            farthest = max(farthest, nearest)
            XCTAssertEqual(model.uvs![vertex].x, (point.x + 1) / 2, accuracy: 1e-4)
        }
        XCTAssertLessThan(farthest, 1e-4, "every vertex on the plane's grid")
        // Still facing the cameras at -z: winding kept through the transform and the up axis.
        let t = model.triangles[0]
        let corner = { (i: Int32) in SIMD3<Double>(model.positions[Int(i)]) }
        let normal = cross(corner(t.y) - corner(t.x), corner(t.z) - corner(t.x))
        XCTAssertLessThan(normal.z, 0)

        // render: the texture's colour.
        let renders = folder.appendingPathComponent("renders")
        let rendered = try run(["render", url.path, renders.path, "64"])
        XCTAssertEqual(rendered.status, 0, rendered.standardError)
        XCTAssertTrue(rendered.standardOutput.contains("800 triangles, 441 vertices, texture 16 x 8"), rendered.standardOutput)

        // texture: four posed photos of the plane texture it where it is (MeshTexturingTests' scene).
        let capture = folder.appendingPathComponent("capture")
        let images = capture.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let (views, posed) = try TextureAtlasTests.writePlanePhotos(into: images)
        try NerfstudioTransforms(posed, filePath: { "images/" + $0 }).jsonData().write(to: capture.appendingPathComponent("transforms.json"))
        let output = folder.appendingPathComponent("out")
        let textured = try run(["texture", url.path, capture.path, output.path, "--detail", "preview"], timeout: 300)
        XCTAssertEqual(textured.status, 0, textured.standardError)
        let result = try ModelReader.read(output.appendingPathComponent("model.glb"))
        let view = views[0]
        let (psnr, samples) = try TextureAtlasTests.psnrAgainstPhoto(result, from: view)
        XCTAssertGreaterThan(samples, 3 * view.width * view.height / 4, "the plane fills most of the view")
        XCTAssertGreaterThan(psnr, 25, "render of the textured USDZ plane against the photo: \(psnr) dB")
    }

    // MARK: - A room as RoomPlan exports it

    func testRoomPlanLikeUSDZIsOneMeshWithTheRoomsBounds() throws {
        let folder = try makeBridgeTestDirectory(self)
        let url = folder.appendingPathComponent("room.usdz")
        // Walls, floor and a table, each a Mesh under its own transformed Xform, Y up, metres; a
        // hidden box and a guide box far away that must not count.
        let output = try PythonCheck.run("""
            import os
            from pxr import Usd, UsdGeom, Sdf, UsdUtils, Gf
            folder = \(pythonString(folder.path))
            stage = Usd.Stage.CreateNew(os.path.join(folder, 'Room.usdc'))
            UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
            UsdGeom.SetStageMetersPerUnit(stage, 1)
            room = UsdGeom.Xform.Define(stage, '/Room')
            stage.SetDefaultPrim(room.GetPrim())
            def box(path, size, translate, rotate_y=0):
                holder = UsdGeom.Xform.Define(stage, path)
                holder.AddTranslateOp().Set(Gf.Vec3d(*translate))
                holder.AddRotateYOp().Set(rotate_y)
                mesh = UsdGeom.Mesh.Define(stage, path + '/Mesh')
                sx, sy, sz = [s / 2 for s in size]
                mesh.CreatePointsAttr([(x * sx, y * sy, z * sz) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)])
                mesh.CreateFaceVertexCountsAttr([4] * 6)
                mesh.CreateFaceVertexIndicesAttr([0, 1, 3, 2, 4, 6, 7, 5, 0, 4, 5, 1, 2, 3, 7, 6, 0, 2, 6, 4, 1, 5, 7, 3])
                return holder, mesh
            box('/Room/Walls/Wall0', (4, 2.5, 0.1), (0, 1.25, -2))
            box('/Room/Walls/Wall1', (4, 2.5, 0.1), (2, 1.25, 0), 90)
            box('/Room/Walls/Wall2', (4, 2.5, 0.1), (0, 1.25, 2))
            box('/Room/Walls/Wall3', (4, 2.5, 0.1), (-2, 1.25, 0), 90)
            floor = UsdGeom.Mesh.Define(stage, '/Room/Floors/Floor0')
            floor.CreatePointsAttr([(-2, 0, -2), (-2, 0, 2), (2, 0, 2), (2, 0, -2)])
            floor.CreateFaceVertexCountsAttr([4])
            floor.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
            _, table = box('/Room/Objects/Table0', (1.2, 0.75, 0.6), (0.5, 0.375, 0.5), 30)
            table.CreateDisplayColorAttr([(0.8, 0.2, 0.1)])
            hidden, _ = box('/Room/Hidden', (1, 1, 1), (10, 10, 10))
            hidden.MakeInvisible()
            guide, _ = box('/Room/Guide', (1, 1, 1), (-10, -10, -10))
            guide.CreatePurposeAttr(UsdGeom.Tokens.guide)
            stage.GetRootLayer().Save()
            assert UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(os.path.join(folder, 'Room.usdc')), \(pythonString(url.path)))
            print('OK')
            """, modules: ["pxr"])
        guard output?.contains("OK") == true else { return }

        // Four walls, the floor and the table: 4 x 8 + 4 + 8 points, 4 x 12 + 2 + 12 triangles.
        let row = try statsRow(url)
        XCTAssertEqual(row["vertices"] as? Int, 44)
        XCTAssertEqual(row["triangles"] as? Int, 62)
        let size = try XCTUnwrap(row["size"] as? [Double])
        for (got, want) in zip(size, [4.1, 2.5, 4.1]) { XCTAssertEqual(got, want, accuracy: 1e-5, "\(size)") }

        let model = try ModelReader.read(url)
        XCTAssertEqual(model.triangles.count, 62)
        let bounds = try XCTUnwrap(model.bounds)
        for (got, want) in zip([bounds.min.x, bounds.min.y, bounds.min.z, bounds.max.x, bounds.max.y, bounds.max.z],
                               [-2.05, 0, -2.05, 2.05, 2.5, 2.05]) {
            XCTAssertEqual(got, want, accuracy: 1e-5)
        }
        // The table's constant displayColor (linear 0.8, 0.2, 0.1) on its vertices, grey elsewhere.
        let red = SIMD3<UInt8>(ModelReader.sRGBByte(linear: 0.8), ModelReader.sRGBByte(linear: 0.2), ModelReader.sRGBByte(linear: 0.1))
        XCTAssertEqual(model.colors.filter { $0 == red }.count, 8)
        XCTAssertEqual(model.colors.filter { $0 == ModelReader.grey }.count, 36)
        let rendered = try run(["render", url.path, folder.appendingPathComponent("renders").path, "64"])
        XCTAssertEqual(rendered.status, 0, rendered.standardError)
        XCTAssertTrue(rendered.standardOutput.contains("62 triangles, 44 vertices"), rendered.standardOutput)
    }

    // MARK: - Hostile files through usd-core

    func testANonFiniteTransformAndASubsetNamingNoFaceAreOneLineErrors() throws {
        let folder = try makeBridgeTestDirectory(self)
        let mesh = """
                def Mesh "m" (
                    prepend apiSchemas = ["MaterialBindingAPI"]
                )
                {
                    int[] faceVertexCounts = [3]
                    int[] faceVertexIndices = [0, 1, 2]
                    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
                    rel material:binding = </M>
                    SUBSET
                }
            """
        let transformed = folder.appendingPathComponent("nan.usda")
        try Data(("#usda 1.0\ndef Material \"M\"\n{\n}\ndef Xform \"X\"\n{\n    matrix4d xformOp:transform = "
                  + "((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (nan, 0, 0, 1))\n"
                  + "    uniform token[] xformOpOrder = [\"xformOp:transform\"]\n"
                  + mesh.replacingOccurrences(of: "SUBSET", with: "") + "\n}\n").utf8).write(to: transformed)
        let subset = folder.appendingPathComponent("subset.usda")
        try Data(("#usda 1.0\ndef Material \"M\"\n{\n}\n" + mesh.replacingOccurrences(of: "SUBSET", with: """
            def GeomSubset "s" (
                        prepend apiSchemas = ["MaterialBindingAPI"]
                    )
                    {
                        uniform token elementType = "face"
                        uniform token familyName = "materialBind"
                        int[] indices = [0, 7]
                        rel material:binding = </M>
                    }
            """) + "\n").utf8).write(to: subset)
        // stats counts points and faces: it reads no materials, so only the reader meets the subset.
        for (url, words, commands) in [(transformed, "\(transformed.path): Mesh 0 (/X/m): its transform is not finite", ["stats", "render"]),
                                       (subset, "\(subset.path): Mesh 0: GeomSubset 0: indices[1] refers to face 7, but there are 1", ["render"])] {
            for command in commands.map({ $0 == "stats" ? ["stats", url.path] : ["render", url.path, folder.appendingPathComponent("r").path, "32"] }) {
                let outcome = try run(command)
                XCTAssertEqual(outcome.status, 1, outcome.standardError)
                XCTAssertEqual(outcome.errorLines, ["photogrammetry: error: \(words)"], command[0])
            }
        }
    }

    // MARK: - Without usd-core

    func testWithoutUsdCoreTheTextReaderReadsOurFilesAndSaysSoInOneLine() throws {
        let folder = try makeBridgeTestDirectory(self)
        // A text-layer USDZ (what a run without usd-core writes) and a binary one.
        let text = folder.appendingPathComponent("text.usdz")
        let layer = Data(USDAText.layer(SyntheticSurface.icosphereModel(levels: 2)).utf8)
        try StoredZip.archive([.init(name: USDAText.layerName, data: layer)]).write(to: text)
        let binary = folder.appendingPathComponent("binary.usdz")
        try ModelExporter.write(SyntheticSurface.icosphereModel(levels: 2), to: binary)
        // A Python that cannot import pxr: site-packages left out (-S), and one that does not exist.
        let noPxr = folder.appendingPathComponent("python-without-pxr")
        try Data("#!/bin/sh\nexec python3 -I -S \"$@\"\n".utf8).write(to: noPxr)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: noPxr.path)
        for (python, reason) in [(noPxr.path, "usd-core is not installed for \(noPxr.path) (pip install usd-core==26.3)"),
                                 ("/nonexistent/python3", "/nonexistent/python3 is not found (set PHOTOGRAMMETRY_PYTHON to a Python with usd-core==26.3)")] {
            let environment = [USDCore.pythonVariable: python]
            let outcome = try run(["stats", text.path], environment: environment)
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            XCTAssertTrue(outcome.standardOutput.contains("162"), outcome.standardOutput)
            XCTAssertEqual(outcome.errorLines, ["photogrammetry: warning: \(text.path): read by the text reader (text layers only, prim transforms and upAxis not applied): \(reason)"])
            let refused = try run(["stats", binary.path], environment: environment)
            XCTAssertEqual(refused.status, 1)
            XCTAssertEqual(refused.errorLines.last, "photogrammetry: error: \(binary.path): model.usdc: binary USD layer (usdc) is not supported by the text reader; install usd-core (pip install usd-core==26.3)")
        }
    }
}

/// `text` as a Python string literal.
private func pythonString(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
