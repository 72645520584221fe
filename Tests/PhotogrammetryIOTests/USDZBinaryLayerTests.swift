import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// Our USDZ as usd-core packs it: a binary (crate) layer first, the textures beside it, every
/// file 64-byte aligned, clean under the ARKit checker, read back with the same counts; and,
/// without usd-core, the text layer of before with one line saying so.
final class USDZBinaryLayerTests: XCTestCase {
    let model = SyntheticSurface.icosphereModel(levels: 3)  // 642 vertices, 1280 triangles, radius 0.5

    var textured: MeshModel {
        var textured = model
        textured.uvs = model.positions.map { SIMD2(0.5 + $0.x, 0.5 + $0.y) }
        textured.material.texture = .init(data: TestPNG.encoded(TestPNG.rows(width: 8, height: 4, channels: 3) { x, y in [UInt8(x * 30), UInt8(y * 60), 128] }, width: 8, height: 4, colorType: 2),
                                          fileName: "texture_0.png", width: 8, height: 4)
        textured.lengthUnit = .metres
        return textured
    }

    func testOurUSDZHoldsABinaryLayerPassesTheARKitCheckerAndReadsBack() throws {
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("model.usdz")
        var lines: [String] = []
        try ModelNotices.routing(to: { lines.append($0) }) { try ModelExporter.write(textured, to: url) }
        XCTAssertEqual(lines, [], "usd-core wrote it")
        let data = try Data(contentsOf: url)
        let entries = try StoredZip.entries(of: data, name: url.path)
        XCTAssertEqual(entries.map(\.name), ["model.usdc", "0/texture_0.png"])
        XCTAssertTrue(entries[0].data.starts(with: Array("PXR-USDC".utf8)), "a binary layer")
        XCTAssertEqual(entries[1].data, textured.material.texture?.data)
        // Every local header's data offset is a multiple of 64.
        let bytes = [UInt8](data)
        var offset = 0, found = 0
        while offset + 30 <= bytes.count, bytes[offset..<offset + 4].elementsEqual([0x50, 0x4B, 0x03, 0x04]) {
            XCTAssertEqual(bytes[offset + 8], 0, "stored, not deflated")
            let size = bytes[offset + 18..<offset + 22].reversed().reduce(0) { $0 << 8 | Int($1) }
            let dataStart = offset + 30 + (Int(bytes[offset + 26]) | Int(bytes[offset + 27]) << 8) + (Int(bytes[offset + 28]) | Int(bytes[offset + 29]) << 8)
            XCTAssertEqual(dataStart % 64, 0)
            found += 1
            offset = dataStart + size
        }
        XCTAssertEqual(found, 2)

        try assertARKitCompliant(url)

        let stats = try ModelStats.read(url)
        XCTAssertEqual([stats.vertices, stats.triangles], [642, 1280])
        XCTAssertEqual(stats.metersPerUnit, 1)
        XCTAssertEqual(stats.textures, [.init(width: 8, height: 4)])
        let read = try ModelReader.read(url)
        XCTAssertEqual(read.positions.count, 642)
        XCTAssertEqual(read.triangles, textured.triangles)
        XCTAssertEqual(read.material.texture?.data, textured.material.texture?.data)
        XCTAssertEqual(read.material.texture?.fileName, "texture_0.png")
        for (a, b) in zip(read.positions, textured.positions) { XCTAssertEqual(a, b) }
        for (a, b) in zip(read.uvs ?? [], textured.uvs ?? []) { XCTAssertEqual(a, b) }
        for (a, b) in zip(read.normals, textured.normals) { XCTAssertLessThan(length(SIMD3<Double>(a - b)), 1e-5) }
        XCTAssertEqual(Set(read.colors), [ModelReader.grey], "a textured model carries no vertex colours")
        XCTAssertEqual(read.lengthUnit, .metres)
    }

    func testATwoPageAtlasKeepsItsPagesThroughTheBinaryLayer() throws {
        var twoPages = model
        twoPages.uvs = model.positions.map { SIMD2(0.5 + $0.x, 0.5 + $0.y) }
        func page(_ rgb: [UInt8], _ n: Int) -> MeshMaterial {
            MeshMaterial(name: "surface_\(n)", texture: .init(
                data: TestPNG.encoded(TestPNG.rows(width: 8, height: 8, channels: 3) { _, _ in rgb }, width: 8, height: 8, colorType: 2),
                fileName: "texture_\(n).png", width: 8, height: 8))
        }
        twoPages.materials = [page([200, 30, 30], 0), page([30, 30, 200], 1)]
        twoPages.materialOfTriangle = SyntheticSurface.centroids(model).map { $0.x < 0 ? 0 : 1 }
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("pages.usdz")
        try ModelExporter.write(twoPages, to: url)
        XCTAssertEqual(try StoredZip.entries(of: Data(contentsOf: url), name: url.path).map(\.name).sorted(),
                       ["0/texture_0.png", "0/texture_1.png", "model.usdc"])
        let read = try ModelReader.read(url)
        XCTAssertEqual(read.textures.map(\.data), twoPages.textures.map(\.data))
        XCTAssertEqual(read.materialOfTriangle, twoPages.materialOfTriangle)
        XCTAssertEqual(try ModelStats.read(url).textures.count, 2)
    }

    func testTheBinaryLayerIsUnderHalfTheTextLayersSize() throws {
        let large = SyntheticSurface.icosphereModel(levels: 5)
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("large.usdz")
        try ModelExporter.write(large, to: url)
        let text = StoredZip.archive([.init(name: USDAText.layerName, data: Data(USDAText.layer(large).utf8))])
        let binary = try Data(contentsOf: url).count
        XCTAssertLessThan(2 * binary, text.count, "binary \(binary) bytes, text \(text.count)")
    }

    func testWithoutUsdCoreTheUSDZHoldsTheTextLayerAndOneLineSaysWhy() throws {
        let url = try makeBridgeTestDirectory(self).appendingPathComponent("model.usdz")
        setenv(USDCore.pythonVariable, "/nonexistent/python3", 1)
        defer { unsetenv(USDCore.pythonVariable) }
        var lines: [String] = []
        try ModelNotices.routing(to: { lines.append($0) }) { try ModelExporter.write(textured, to: url) }
        XCTAssertEqual(lines, ["\(url.path): written with a text layer: /nonexistent/python3 is not found (set PHOTOGRAMMETRY_PYTHON to a Python with usd-core==26.3)"])
        let entries = try StoredZip.entries(of: Data(contentsOf: url), name: url.path)
        XCTAssertEqual(entries.map(\.name), ["model.usda", "texture_0.png"])
        XCTAssertTrue(entries[0].data.starts(with: Array("#usda".utf8)))
        // Read back by the text reader, with its own line.
        let read = try ModelNotices.routing(to: { lines.append($0) }) { try ModelReader.read(url) }
        XCTAssertEqual(read.triangles.count, 1280)
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[1].hasPrefix("\(url.path): read by the text reader"), lines[1])
        XCTAssertEqual(read.lengthUnit, .metres)
    }
}
