import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Model files, camera files, FIFOs and thread counts that lie, run through the built program as
/// a user runs it: every value is checked where it enters, and anything wrong is one line naming
/// the file (or argument) and the element, with exit 1 (2 for an argument), never a crash, a
/// hang, a NaN in an output or an allocation the file's size does not justify.
final class HostileModelTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    private func run(_ arguments: [String], timeout: TimeInterval = 60,
                     file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        try BuiltProgram.run(arguments, timeout: timeout, logs: try makeBridgeTestDirectory(self), file: file, line: line)
    }

    /// Asserts a run failed with exit `status` and one error line holding every one of `words`.
    private func assertRefused(_ outcome: Outcome, status: Int32 = 1, _ words: [String],
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(outcome.status, status, outcome.standardError + outcome.standardOutput, file: file, line: line)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError, file: file, line: line)
        let error = outcome.errorLines.first ?? ""
        XCTAssertTrue(error.hasPrefix("photogrammetry: error: "), error, file: file, line: line)
        for word in words { XCTAssertTrue(error.contains(word), "\(word) not in: \(error)", file: file, line: line) }
    }

    // MARK: - Hostile files, built here

    /// A GLB of `json` (accessors etc.) and `binary`, chunks padded as the spec asks.
    private func glb(_ json: [String: Any], binary: Data) throws -> Data {
        var text = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        while text.count % 4 != 0 { text.append(0x20) }
        var bin = binary
        while bin.count % 4 != 0 { bin.append(0) }
        var out = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { out.append(contentsOf: $0) } }
        u32(0x4654_6C67); u32(2); u32(12 + 8 + text.count + (bin.isEmpty ? 0 : 8 + bin.count))
        u32(text.count); u32(0x4E4F_534A); out.append(text)
        if !bin.isEmpty { u32(bin.count); u32(0x004E_4942); out.append(bin) }
        return out
    }

    private func floats(_ values: [Float]) -> Data { values.withUnsafeBufferPointer { Data(buffer: $0) } }

    /// A GLB of one triangle primitive: `positions` (x y z each) as accessor 0, with `extra`
    /// accessors and buffer views after it (views count bytes after the positions).
    private func triangleGLB(positions: [Float], declaredCount: Int? = nil, min: [Double]? = nil, max: [Double]? = nil,
                             attributes: [String: Int] = [:], indices: Int? = nil,
                             extraAccessors: [[String: Any]] = [], extraViews: [[String: Any]] = [], extraBinary: Data = Data(),
                             images: [[String: Any]]? = nil) throws -> Data {
        var position: [String: Any] = ["bufferView": 0, "componentType": 5126, "count": declaredCount ?? positions.count / 3,
                                       "type": "VEC3"]
        if let min, let max { position["min"] = min; position["max"] = max }
        var primitive: [String: Any] = ["attributes": ["POSITION": 0].merging(attributes) { a, _ in a }]
        if let indices { primitive["indices"] = indices }
        let positionBytes = floats(positions)
        var json: [String: Any] = [
            "asset": ["version": "2.0"],
            "accessors": [position] + extraAccessors,
            "bufferViews": [["buffer": 0, "byteLength": positionBytes.count]] + extraViews,
            "buffers": [["byteLength": positionBytes.count + extraBinary.count]],
            "meshes": [["primitives": [primitive]]],
        ]
        if let images { json["images"] = images }
        return try glb(json, binary: positionBytes + extraBinary)
    }

    private let triangle: [Float] = [0, 0, 0, 2, 0, 0, 0, 3, 0]

    private let plyHeader = """
        ply
        format ascii 1.0
        element vertex 3
        property float x
        property float y
        property float z
        element face 1
        property list uchar int vertex_indices
        end_header

        """

    private func usda(points: String, indices: String = "0, 1, 2", metersPerUnit: String = "1") -> String {
        """
        #usda 1.0
        (
            metersPerUnit = \(metersPerUnit)
        )
        def Mesh "m"
        {
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [\(indices)]
            point3f[] points = [\(points)]
        }

        """
    }

    private func asciiSTL(_ corners: [String]) -> String {
        "solid x\nfacet normal 0 0 1\nouter loop\n" + corners.map { "vertex \($0)\n" }.joined() + "endloop\nendfacet\nendsolid x\n"
    }

    private func write(_ data: Data, _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    private func write(_ text: String, _ name: String, in folder: URL) throws -> URL {
        try write(Data(text.utf8), name, in: folder)
    }

    // MARK: - stats

    func testStatsRefusesAGLBWhoseAccessorCountsLie() throws {
        let folder = try makeBridgeTestDirectory(self)
        // Eight vertices (96 bytes) whose accessor claims a billion, with min/max to match the lie.
        var cube: [Float] = []
        for k in 0..<8 { cube += [Float(k & 1), Float((k >> 1) & 1), Float((k >> 2) & 1)] }
        let url = try write(try triangleGLB(positions: cube, declaredCount: 1_000_000_000, min: [0, 0, 0], max: [1, 1, 1]),
                            "x.glb", in: folder)
        XCTAssertLessThan(try Data(contentsOf: url).count, 1000)
        assertRefused(try run(["stats", url.path]),
                      ["\(url.path): accessor 0 claims 1000000000 VEC3 floats but its buffer view holds 96 bytes"])
        assertRefused(try run(["render", url.path, folder.appendingPathComponent("r").path, "32"]),
                      ["\(url.path): accessor 0 claims 1000000000 VEC3 floats"])
        // An offset that pushes a true count past the view is the same lie.
        let shifted = try write(try glb([
            "asset": ["version": "2.0"],
            "accessors": [["bufferView": 0, "byteOffset": 12, "componentType": 5126, "count": 8, "type": "VEC3"]],
            "bufferViews": [["buffer": 0, "byteLength": 96]], "buffers": [["byteLength": 96]],
            "meshes": [["primitives": [["attributes": ["POSITION": 0]]]]],
        ], binary: floats(cube)), "shifted.glb", in: folder)
        assertRefused(try run(["stats", shifted.path]), ["\(shifted.path): accessor 0 claims 8 VEC3 floats from byte 12"])
        // A buffer view that reaches past the binary chunk, and one whose end overflows.
        for (name, offset, length) in [("long.glb", 0, 4096), ("overflow.glb", Int.max - 4, 96)] {
            let url = try write(try glb([
                "asset": ["version": "2.0"],
                "accessors": [["bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3"]],
                "bufferViews": [["buffer": 0, "byteOffset": offset, "byteLength": length]], "buffers": [["byteLength": 96]],
                "meshes": [["primitives": [["attributes": ["POSITION": 0]]]]],
            ], binary: floats(cube)), name, in: folder)
            assertRefused(try run(["stats", url.path]), ["\(url.path): buffer view 0", "binary chunk of 96 bytes"])
        }
    }

    func testStatsTakesTheBoxFromThePositionsNotTheDeclaredMinMax() throws {
        let folder = try makeBridgeTestDirectory(self)
        let url = try write(try triangleGLB(positions: triangle, min: [-100, -100, -100], max: [100, 100, 100]), "box.glb", in: folder)
        let outcome = try run(["stats", "--json", url.path])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.first?["size"] as? [Double], [2, 3, 0])
        XCTAssertEqual(rows.first?["vertices"] as? Int, 3)
        XCTAssertEqual(rows.first?["triangles"] as? Int, 1)
    }

    func testFacesNamingMissingVerticesAreRefusedInEveryFormat() throws {
        let folder = try makeBridgeTestDirectory(self)
        let indices = Data([0, 0, 1, 0, 7, 0, 0, 0])  // unsigned shorts 0 1 7, padded
        let cases: [(URL, [String])] = [
            (try write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999\n", "far.obj", in: folder),
             ["line 4: a face refers to vertex 99999, but there are 3"]),
            (try write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9\n", "back.obj", in: folder), ["line 4: a face refers to vertex -9"]),
            (try write("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/5\n", "vt.obj", in: folder),
             ["a face refers to texture coordinate 5, but there are 1"]),
            (try write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 99999999999999999999999 1 2\n", "huge.obj", in: folder),
             ["a face refers to vertex"]),
            (try write(try triangleGLB(positions: triangle, indices: 1,
                                       extraAccessors: [["bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"]],
                                       extraViews: [["buffer": 0, "byteOffset": 36, "byteLength": 6]], extraBinary: indices),
                       "far.glb", in: folder),
             ["accessor 1 (indices) element 2 refers to vertex 7, but there are 3"]),
            (try write(usda(points: "(0, 0, 0), (1, 0, 0), (0, 1, 0)", indices: "0, 1, 3"), "far.usda", in: folder),
             ["Mesh 0: faceVertexIndices[2] refers to point 3, but there are 3"]),
            (try write(plyHeader + "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", "far.ply", in: folder), ["face 0 refers to vertex 3 of 3"]),
        ]
        for (url, words) in cases {
            assertRefused(try run(["stats", url.path]), [url.path] + words)
            assertRefused(try run(["render", url.path, folder.appendingPathComponent("r").path, "32"]), [url.path] + words)
        }
    }

    func testNonFiniteValuesAreRefusedByNameInEveryFormat() throws {
        let folder = try makeBridgeTestDirectory(self)
        let nanColour = try triangleGLB(positions: triangle, attributes: ["COLOR_0": 1],
                                        extraAccessors: [["bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"]],
                                        extraViews: [["buffer": 0, "byteOffset": 36, "byteLength": 36]],
                                        extraBinary: floats([1, 1, 1, .nan, 0, 0, 1, 1, 1]))
        let cases: [(URL, String, Bool)] = [  // file, words, whether stats reads the value (colours and texcoords it does not need)
            (try write("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", "nan.obj", in: folder), "vertex 2 has a non-finite coordinate (nan)", true),
            (try write("v 0 0 0\nv 1 0 0\nv 0 1e999 0\nf 1 2 3\n", "big.obj", in: folder), "vertex 3 has a non-finite coordinate (inf)", true),
            (try write("v 0 0 0 nan 0 0\nv 1 0 0 1 0 0\nv 0 1 0 1 0 0\nf 1 2 3\n", "colour.obj", in: folder),
             "vertex 1 has a non-finite colour (nan)", true),
            (try write("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt inf 0\nf 1/1 2/2 3/1\n", "vt.obj", in: folder),
             "vt 2 has a non-finite texture coordinate (inf)", true),
            (try write(plyHeader + "0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n", "nan.ply", in: folder), "vertex 1 has a non-finite coordinate (nan)", true),
            (try write(asciiSTL(["0 0 0", "inf 0 0", "0 1 0"]), "inf.stl", in: folder),
             "triangle 0 corner 1 has a non-finite coordinate (inf)", true),
            (try write(usda(points: "(0, 0, 0), (nan, 0, 0), (0, 1, 0)"), "nan.usda", in: folder),
             "Mesh 0: point 1 has a non-finite coordinate (nan)", true),
            (try write(usda(points: "(0, 0, 0), (1e999, 0, 0), (0, 1, 0)"), "big.usda", in: folder),
             "Mesh 0: point 1 has a non-finite coordinate (inf)", true),
            (try write(try triangleGLB(positions: [0, 0, 0, .nan, 0, 0, 0, 1, 0]), "nan.glb", in: folder),
             "accessor 0 (POSITION): vertex 1 has a non-finite coordinate (nan)", true),
            (try write(nanColour, "colour.glb", in: folder), "accessor 1 (COLOR_0): vertex 1 has a non-finite colour (nan)", false),
        ]
        for (url, words, statsReads) in cases {
            if statsReads { assertRefused(try run(["stats", "--json", url.path]), ["\(url.path): \(words)"]) }
            assertRefused(try run(["render", url.path, folder.appendingPathComponent("r").path, "32"]), ["\(url.path): \(words)"])
            // A reader that traps on a NaN would take the test runner with it: that case goes
            // through the program only.
            guard url.lastPathComponent != "colour.glb" else { continue }
            XCTAssertThrowsError(try ModelReader.read(url), url.lastPathComponent) { error in
                XCTAssertEqual("\(error)", "\(url.path): \(words)")
            }
        }
        // texture reads its MESH first: the NaN never reaches its output or Foundation's JSON writer.
        let mesh = folder.appendingPathComponent("nan.obj")
        assertRefused(try run(["texture", mesh.path, folder.appendingPathComponent("no-capture").path,
                               folder.appendingPathComponent("out").path]),
                      ["\(mesh.path): vertex 2 has a non-finite coordinate (nan)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
        // A unit that makes finite coordinates overflow is refused too, not printed as nan or inf.
        let unit = try write(usda(points: "(0, 0, 0), (1, 0, 0), (0, 1, 0)", metersPerUnit: "nan"), "unit.usda", in: folder)
        assertRefused(try run(["stats", "--json", unit.path]), ["\(unit.path): metersPerUnit nan"])
    }

    func testTruncatedEmptyAndLyingFilesAreOneLineNeverACrash() throws {
        let folder = try makeBridgeTestDirectory(self)
        let good = folder.appendingPathComponent("good")
        try FileManager.default.createDirectory(at: good, withIntermediateDirectories: true)
        var files: [URL] = []
        for format in ["glb", "obj", "ply", "stl", "usdz"] {
            let url = good.appendingPathComponent("model.\(format)")
            try ModelExporter.write(RenderTestScenes.cube(), to: url)
            let bytes = try Data(contentsOf: url)
            files.append(try write(bytes.prefix(bytes.count / 2), "half.\(format)", in: folder))
            files.append(try write(bytes.prefix(10), "ten.\(format)", in: folder))
            files.append(try write(Data(), "empty.\(format)", in: folder))
        }
        // A GLB whose header, JSON chunk or binary chunk declares more than the file holds.
        let glbBytes = try Data(contentsOf: good.appendingPathComponent("model.glb"))
        for (name, at) in [("length.glb", 8), ("json.glb", 12)] {
            var lying = glbBytes
            lying.replaceSubrange(at..<at + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
            files.append(try write(lying, name, in: folder))
        }
        // An image in a buffer view whose offset overflows.
        files.append(try write(try triangleGLB(positions: triangle, extraViews: [["buffer": 0, "byteOffset": Int.max, "byteLength": 1]],
                                               images: [["bufferView": 1, "mimeType": "image/png"]]), "image.glb", in: folder))
        // A binary STL whose header starts "solid" (as many do) and whose count lies.
        var stl = Data("solid binary".utf8) + Data(count: 68)
        withUnsafeBytes(of: UInt32(1_000_000).littleEndian) { stl.append(contentsOf: $0) }
        stl += Data(count: 50)
        files.append(try write(stl, "count.stl", in: folder))
        // A binary PLY whose vertex count lies.
        files.append(try write(Data("ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n".utf8) + floats(triangle),
                               "count.ply", in: folder))
        // A USDZ whose central directory lists its one file fifty times: stored entries never
        // share bytes, so their sizes together cannot exceed the file's.
        let layer = Data(usda(points: "(0, 0, 0), (1, 0, 0), (0, 1, 0)").utf8) + Data(repeating: 0x20, count: 4000)
        let archive = StoredZip.archive([.init(name: "model.usda", data: layer)])
        let end = archive.count - 22
        let centralOffset = Int(archive[end + 16]) | Int(archive[end + 17]) << 8 | Int(archive[end + 18]) << 16
        let central = archive[centralOffset..<end]
        var bomb = archive.prefix(centralOffset)
        for _ in 0..<50 { bomb += central }
        var record = Data(archive[end...])
        record.replaceSubrange(8..<12, with: [50, 0, 50, 0])
        withUnsafeBytes(of: UInt32(50 * central.count).littleEndian) { record.replaceSubrange(12..<16, with: $0) }
        files.append(try write(bomb + record, "bomb.usdz", in: folder))

        for url in files {
            let output = folder.appendingPathComponent("renders-" + url.lastPathComponent)
            for command in [["stats", url.path], ["render", url.path, output.path, "32"]] {
                let outcome = try run(command)
                // Half an OBJ can be a whole one (the faces cut off are simply not there); any
                // other cut or lie is refused.
                if url.lastPathComponent == "half.obj", outcome.status == 0 { continue }
                assertRefused(outcome, [url.path])
            }
        }
    }

    // MARK: - render --cameras

    func testACameraLargerThanARenderCanBeIsRefusedBeforeItsPixelsAre() throws {
        let folder = try makeBridgeTestDirectory(self)
        let model = folder.appendingPathComponent("cube.obj")
        try ModelExporter.write(RenderTestScenes.cube(), to: model)
        for (size, name) in [("200000 200000", "huge"), ("640 0", "flat"), ("-200000 -200000", "negative")] {
            let sparse = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: sparse, withIntermediateDirectories: true)
            try "1 PINHOLE \(size) 1000 1000 320 240\n".write(to: sparse.appendingPathComponent("cameras.txt"), atomically: true, encoding: .utf8)
            try "1 1 0 0 0 -0.5 -0.5 4 1 a.jpg\n\n".write(to: sparse.appendingPathComponent("images.txt"), atomically: true, encoding: .utf8)
            let output = folder.appendingPathComponent("renders-\(name)")
            let words = size.split(separator: " ").joined(separator: " x ")
            for extra in [[], ["64"]] {
                assertRefused(try run(["render", model.path, output.path] + extra + ["--cameras", sparse.path]),
                              ["\(sparse.path)/cameras.txt: camera 1 is \(words) px", "1 to 16384 px a side"])
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
        }
        // SIZE has the same limit, as an argument error.
        for size in ["16385", "200000", "15", "big"] {
            assertRefused(try run(["render", model.path, folder.appendingPathComponent("r").path, size]), status: 2,
                          ["SIZE \(size): want an integer from 16 to 16384"])
        }
    }

    // MARK: - FIFOs

    func testAFIFOIsRefusedWithoutOpeningIt() throws {
        let folder = try makeBridgeTestDirectory(self)
        let out = folder.appendingPathComponent("out").path
        let sparse = folder.appendingPathComponent("sparse")
        try FileManager.default.createDirectory(at: sparse, withIntermediateDirectories: true)
        let cube = folder.appendingPathComponent("cube.ply")
        try ModelExporter.write(RenderTestScenes.cube(), to: cube)
        var commands: [(String, [String])] = []
        for name in ["cloud.ply", "model.glb", "model.obj", "model.usdz", "model.stl"] {
            let fifo = folder.appendingPathComponent("fifo-" + name)
            try BadInputs.makeFIFO(at: fifo)
            commands.append((fifo.path, ["stats", fifo.path]))
            commands.append((fifo.path, ["render", fifo.path, out]))
            commands.append((fifo.path, ["texture", fifo.path, folder.path, out]))
        }
        let cloud = folder.appendingPathComponent("fifo-cloud.ply").path
        commands.append((cloud, ["mesh", cloud, out]))
        commands.append((cloud, ["compare-cloud", cloud, cube.path, "--sparse", sparse.path, "--reference-sparse", sparse.path, "--tau", "0.1"]))
        commands.append((cloud, ["compare-cloud", cube.path, cloud, "--sparse", sparse.path, "--reference-sparse", sparse.path, "--tau", "0.1"]))
        commands.append((cloud, ["compare-cloud", cube.path, cube.path, "--region", cloud, "--sparse", sparse.path,
                                 "--reference-sparse", sparse.path, "--tau", "0.1"]))
        // A COLMAP model's files are read for render --cameras too.
        let cameras = sparse.appendingPathComponent("cameras.txt")
        try BadInputs.makeFIFO(at: cameras)
        commands.append((cameras.path, ["render", cube.path, out, "--cameras", sparse.path]))
        for (fifo, arguments) in commands {
            assertRefused(try run(arguments, timeout: 30), ["\(fifo): is a named pipe (FIFO), not a"])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // A device never ends either.
        assertRefused(try run(["stats", "/dev/zero"], timeout: 30), ["/dev/zero: is a character device, not a model file"])
    }

    // MARK: - --threads

    func testThreadsOutOfRangeIsAnArgumentErrorInEveryCommand() throws {
        let folder = try makeBridgeTestDirectory(self)
        let input = folder.appendingPathComponent("capture").path, out = folder.appendingPathComponent("out").path
        let cloud = folder.appendingPathComponent("cloud.ply").path, mesh = folder.appendingPathComponent("mesh.obj").path
        let commands: [[String]] = [
            ["reconstruct", input, out], ["diagnose", input], ["match", input, out], ["batch", input, out],
            ["mesh", cloud, out], ["texture", mesh, input, out],
        ]
        for command in commands {
            for value in ["100000", "257", "0", "-3", "two", ""] {
                assertRefused(try run(command + ["--threads", value]), status: 2,
                              ["photogrammetry: error: --threads \(value): want an integer from 1 to 256"])
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
