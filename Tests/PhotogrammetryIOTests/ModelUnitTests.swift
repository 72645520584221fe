import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// Every file says what its unit is (``LengthUnit``) and the readers and `stats` read it back;
/// a textured file carries no vertex colours a client would multiply with its texture.
final class ModelUnitTests: XCTestCase {
    let sphere = SyntheticSurface.icosphereModel(levels: 2)  // 162 vertices, 320 triangles, radius 0.5

    /// The sphere with one 8 x 8 texture page over its x-y projection.
    func texturedSphere() -> MeshModel {
        var textured = sphere
        textured.uvs = sphere.positions.map { SIMD2(0.5 + $0.x, 0.5 + $0.y) }
        let pixels = TestPNG.rows(width: 8, height: 8, channels: 3) { x, y in [UInt8(30 * x), UInt8(30 * y), 128] }
        textured.material.texture = .init(data: TestPNG.encoded(pixels, width: 8, height: 8, colorType: 2),
                                          fileName: "texture_0.png", width: 8, height: 8)
        return textured
    }

    /// The text a file records its unit in: the USDZ's layer, the GLB's JSON chunk, the OBJ,
    /// the PLY header, the STL header.
    func metadataText(_ url: URL) throws -> String {
        let data = try Data(contentsOf: url)
        switch url.pathExtension {
        case "usdz":
            let layer = try StoredZip.entries(of: data, name: url.path)[0].data
            guard layer.starts(with: Array("PXR-USDC".utf8)) else { return String(decoding: layer, as: UTF8.self) }
            // A binary layer (usd-core's): its text, as usdcat prints it.
            return try XCTUnwrap(try PythonCheck.run("""
                from pxr import Usd
                stage = Usd.Stage.Open(\(pythonString(url.path)))
                print(stage.GetRootLayer().ExportToString())
                """, modules: ["pxr"]))
        case "glb":
            let json = try ModelReader.GLBFile(data, name: url.path).json
            return String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
        case "stl": return String(decoding: data.prefix(80), as: UTF8.self)
        default: return String(decoding: data.prefix(4096), as: UTF8.self)
        }
    }

    func testTheUnitRoundTripsThroughEveryFormatReaderAndStats() throws {
        let folder = try makeBridgeTestDirectory(self)
        for unit in LengthUnit.allCases {
            var model = sphere
            model.lengthUnit = unit
            for format in ModelFormat.allCases {
                let url = folder.appendingPathComponent("\(unit.rawValue).\(format.rawValue)")
                try ModelExporter.write(model, to: url)
                let label = "\(unit) \(format.rawValue)"
                let read = try ModelReader.read(url)
                XCTAssertEqual(read.lengthUnit, unit, label)
                XCTAssertEqual(read.bounds?.size.x ?? 0, 1, accuracy: 1e-5, "\(label): positions as written")
                let stats = try ModelStats.read(url)
                XCTAssertEqual(stats.metersPerUnit, unit == .metres ? 1 : nil, label)
                XCTAssertEqual(stats.sizeUnit, unit == .metres ? "m" : "unknown", label)
                XCTAssertEqual(stats.size.x, 1, accuracy: 1e-5, label)
                let json = try ModelStatsTable.json([stats])
                let row = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first)
                XCTAssertEqual(row["size_unit"] as? String, unit == .metres ? "m" : "unknown", label)
                XCTAssertTrue(ModelStatsTable.text([stats]).contains(unit == .metres ? " m  " : " unknown  "), label)
                // In the form each format's readers look for, spelled as LengthUnit spells it.
                let text = try metadataText(url)
                let recorded: String
                switch format {
                case .usdz: recorded = "string lengthUnit = \"\(unit.rawValue)\""
                case .glb: recorded = "\"asset\":{\"extras\":{\"lengthUnit\":\"\(unit.rawValue)\"}"
                case .obj: recorded = "\n# lengthUnit: \(unit.rawValue)\n"
                case .ply: recorded = "\ncomment lengthUnit \(unit.rawValue)\n"
                case .stl: recorded = "lengthUnit: \(unit.rawValue)"
                }
                XCTAssertTrue(text.contains(recorded), "\(label): \(recorded) in \(text.prefix(400))")
                XCTAssertEqual(text.contains("scale is arbitrary"), format == .usdz && unit == .unknown, label)
            }
        }
    }

    func testOtherToolsFilesTakeTheirFormatsUnit() throws {
        let folder = try makeBridgeTestDirectory(self)
        func write(_ text: String, _ name: String) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url
        }
        // OBJ, PLY and STL have no unit: unknown unless our comment says metres.
        let obj = try write("# exported elsewhere\nv 0 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\n", "plain.obj")
        let ply = try write("ply\nformat ascii 1.0\ncomment made elsewhere\nelement vertex 3\nproperty float x\nproperty float y\n"
                            + "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                            + "0 0 0\n2 0 0\n0 1 0\n3 0 1 2\n", "plain.ply")
        let stl = try write("solid part\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 2 0 0\nvertex 0 1 0\n"
                            + "endloop\nendfacet\nendsolid part\n", "plain.stl")
        for url in [obj, ply, stl] {
            XCTAssertEqual(try ModelReader.read(url).lengthUnit, .unknown, url.lastPathComponent)
            XCTAssertNil(try ModelStats.read(url).metersPerUnit, url.lastPathComponent)
            XCTAssertEqual(try ModelStats.read(url).sizeUnit, "unknown", url.lastPathComponent)
        }
        let metricOBJ = try write("# lengthUnit: metres\nv 0 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\n", "metric.obj")
        XCTAssertEqual(try ModelReader.read(metricOBJ).lengthUnit, .metres)
        // A comment after the first statement is not the file's header.
        let late = try write("v 0 0 0\n# lengthUnit: metres\nv 2 0 0\nv 0 1 0\nf 1 2 3\n", "late.obj")
        XCTAssertEqual(try ModelReader.read(late).lengthUnit, .unknown)

        // USD states metersPerUnit (0.01 when absent): metres, the points scaled by it.
        let usda = try write("""
            #usda 1.0
            (
                metersPerUnit = 0.01
                upAxis = "Y"
            )

            def Mesh "Part"
            {
                int[] faceVertexCounts = [3]
                int[] faceVertexIndices = [0, 1, 2]
                point3f[] points = [(0, 0, 0), (200, 0, 0), (0, 100, 0)]
            }

            """, "centimetres.usda")
        let centimetres = try ModelReader.read(usda)
        XCTAssertEqual(centimetres.lengthUnit, .metres)
        XCTAssertEqual(centimetres.bounds?.size.x ?? 0, 2, accuracy: 1e-6, "200 cm")
        XCTAssertEqual(try ModelStats.read(usda).metersPerUnit, 0.01)
        XCTAssertEqual(try ModelStats.read(usda).size.x, 2, accuracy: 1e-9)

        // glTF is metres unless asset.extras says otherwise.
        let glb = folder.appendingPathComponent("plain.glb")
        var model = sphere
        model.lengthUnit = .unknown
        try ModelExporter.write(model, to: glb)
        let withoutExtras = try glbReplacingAsset(glb, with: ["version": "2.0"])
        XCTAssertEqual(try ModelReader.read(withoutExtras).lengthUnit, .metres)
        XCTAssertEqual(try ModelStats.read(withoutExtras).metersPerUnit, 1)
    }

    /// A copy of the GLB at `url` whose JSON chunk's `asset` is `asset`.
    func glbReplacingAsset(_ url: URL, with asset: [String: Any]) throws -> URL {
        let data = try Data(contentsOf: url)
        var file = try ModelReader.GLBFile(data, name: url.path)
        var json = file.json
        json["asset"] = asset
        var jsonBytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
        while jsonBytes.count % 4 != 0 { jsonBytes.append(0x20) }
        let oldJSONLength = Int(data[12]) | Int(data[13]) << 8 | Int(data[14]) << 16 | Int(data[15]) << 24
        let binaryChunk = data[(20 + oldJSONLength)...]
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        var out = [UInt8](data.prefix(8))
        out += le32(12 + 8 + jsonBytes.count + binaryChunk.count)
        out += le32(jsonBytes.count) + Array("JSON".utf8) + jsonBytes + binaryChunk
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy-" + url.lastPathComponent)
        try Data(out).write(to: copy)
        file = try ModelReader.GLBFile(Data(out), name: copy.path)  // still a valid GLB
        XCTAssertEqual((file.json["asset"] as? [String: Any])?["version"] as? String, "2.0")
        return copy
    }

    func testATexturedModelCarriesNoVertexColoursInAnyFormat() throws {
        let folder = try makeBridgeTestDirectory(self)
        let textured = texturedSphere()
        for (name, model) in [("textured", textured), ("coloured", sphere)] {
            for format in ModelFormat.allCases {
                try ModelExporter.write(model, to: folder.appendingPathComponent("\(name).\(format.rawValue)"))
            }
        }
        func texts(_ name: String) throws -> (usda: String, glb: String, obj: String, ply: String) {
            (try metadataText(folder.appendingPathComponent("\(name).usdz")),
             try metadataText(folder.appendingPathComponent("\(name).glb")),
             try String(contentsOf: folder.appendingPathComponent("\(name).obj"), encoding: .utf8),
             try metadataText(folder.appendingPathComponent("\(name).ply")))
        }
        let t = try texts("textured"), c = try texts("coloured")
        XCTAssertFalse(t.usda.contains("displayColor"))
        XCTAssertTrue(c.usda.contains("primvars:displayColor"))
        XCTAssertFalse(t.glb.contains("COLOR_0"))
        XCTAssertTrue(c.glb.contains("COLOR_0"))
        XCTAssertTrue(t.glb.contains("baseColorTexture"))
        func vertexLineFields(_ obj: String) -> Set<Int> {
            Set(obj.split(separator: "\n").filter { $0.hasPrefix("v ") }.map { $0.split(separator: " ").count - 1 })
        }
        XCTAssertEqual(vertexLineFields(t.obj), [3], "v x y z")
        XCTAssertEqual(vertexLineFields(c.obj), [6], "v x y z r g b")
        XCTAssertFalse(t.ply.contains("property uchar red"))
        XCTAssertTrue(c.ply.contains("property uchar red"))

        // Our readers take the textured files whole: texture, coordinates, grey in place of colours.
        for format in ["usdz", "glb", "obj", "ply"] {
            let read = try ModelReader.read(folder.appendingPathComponent("textured.\(format)"))
            XCTAssertEqual(read.triangles.count, 320, format)
            XCTAssertEqual(read.material.texture?.data, textured.material.texture?.data, format)
            XCTAssertEqual(read.uvs?.count, read.positions.count, format)
            XCTAssertTrue(read.colors.allSatisfy { $0 == ModelReader.grey }, format)
            for (p, uv) in zip(read.positions, read.uvs ?? []) {
                XCTAssertEqual(uv.x, 0.5 + p.x, accuracy: 1e-5, format)
                XCTAssertEqual(uv.y, 0.5 + p.y, accuracy: 1e-5, format)
            }
            XCTAssertEqual(try ModelStats.read(folder.appendingPathComponent("textured.\(format)")).textures, [.init(width: 8, height: 8)])
        }
        // A model with an untextured material beside a textured one keeps its colours.
        var mixed = textured
        mixed.materials.append(MeshMaterial(name: "bare"))
        mixed.materialOfTriangle = SyntheticSurface.centroids(mixed).map { $0.x < 0 ? 0 : 1 }
        XCTAssertTrue(mixed.writesVertexColors)
        XCTAssertFalse(textured.writesVertexColors)
    }

    func testATexturedGLBRoundTripsThroughTrimesh() throws {
        guard PythonCheck.canImport("trimesh") else { throw XCTSkip("trimesh is not importable (scripts/setup installs it)") }
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("textured.glb")
        let textured = texturedSphere()
        try ModelExporter.write(textured, to: url)
        let output = try PythonCheck.run("""
            import trimesh
            a = trimesh.load(\(pythonString(url.path)), force='mesh', process=False)
            data = a.export(file_type='glb')
            b = trimesh.load(trimesh.util.wrap_as_stream(data), file_type='glb', force='mesh', process=False)
            for name, m in (('first', a), ('again', b)):
                print(name, len(m.vertices), len(m.faces), len(m.visual.uv), m.visual.kind)
            """, modules: ["trimesh"])
        guard let output else { return }
        for name in ["first", "again"] {
            XCTAssertTrue(output.contains("\(name) 162 320 162 texture\n"), output)
        }
    }

    func testTheUSDUnitSurvivesUsdCoreAndConversionToABinaryLayer() throws {
        let folder = try makeBridgeTestDirectory(self)
        var model = sphere
        for unit in LengthUnit.allCases {
            model.lengthUnit = unit
            try ModelExporter.write(model, to: folder.appendingPathComponent("\(unit.rawValue).usdz"))
        }
        let output = try PythonCheck.run("""
            from pxr import Usd, UsdGeom, Sdf
            folder = \(pythonString(folder.path)) + '/'
            for unit in ('metres', 'unknown'):
                stage = Usd.Stage.Open(folder + unit + '.usdz')
                stage.GetRootLayer().Export(folder + unit + '.usdc')
                binary = Sdf.Layer.FindOrOpen(folder + unit + '.usdc')
                print(unit, stage.GetRootLayer().customLayerData.get('lengthUnit'), binary.customLayerData.get('lengthUnit'),
                      UsdGeom.GetStageMetersPerUnit(stage))
            """, modules: ["pxr"])
        guard let output else { return }
        XCTAssertTrue(output.contains("metres metres metres 1.0\n"), output)
        XCTAssertTrue(output.contains("unknown unknown unknown 1.0\n"), output)
    }

    private func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
