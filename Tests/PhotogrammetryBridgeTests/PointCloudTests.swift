import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// PLY reading and writing: our binary files round trip; hand-written ascii and big-endian files
/// with lists, quads and unknown properties read correctly; broken files fail with the file name.
final class PointCloudTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("PointCloudTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testBinaryRoundTripKeepsPointsNormalsColoursAndTriangles() throws {
        var rng = SplitMix64(seed: 7)
        let points = (0..<500).map { _ in SIMD3<Float>(Float(rng.uniform(-5, 5)), Float(rng.uniform(-5, 5)), Float(rng.uniform(-5, 5))) }
        let normals = (0..<500).map { _ in SIMD3<Float>(Float(rng.uniform(-1, 1)), Float(rng.uniform(-1, 1)), Float(rng.uniform(-1, 1))) }
        let colors = (0..<500).map { i in SIMD3<UInt8>(UInt8(i % 256), UInt8((3 * i) % 256), 255) }
        let triangles = (0..<100).map { i in SIMD3<Int32>(Int32(i), Int32(i + 1), Int32(499 - i)) }
        let cloud = try PointCloud(points: points, normals: normals, colors: colors, triangles: triangles)
        let url = directory.appendingPathComponent("cloud.ply")
        try cloud.save(to: url)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + ".tmp"), "the temporary is renamed")

        let loaded = try PointCloud.load(url)
        XCTAssertEqual(loaded.pointCount, 500)
        XCTAssertEqual(loaded.triangleCount, 100)
        XCTAssertEqual(loaded.points, points)
        XCTAssertEqual(loaded.normals, normals)
        XCTAssertEqual(loaded.colors, colors)
        XCTAssertEqual(loaded.triangles, triangles)
    }

    func testACloudWithoutNormalsOrColoursIsWrittenWithZeroNormalsAndGrey() throws {
        let cloud = try PointCloud(points: [SIMD3(1, 2, 3)])
        XCTAssertFalse(cloud.hasNormals)
        XCTAssertNil(cloud.colors)
        let url = directory.appendingPathComponent("plain.ply")
        try cloud.save(to: url)
        let loaded = try PointCloud.load(url)
        XCTAssertEqual(loaded.points, [SIMD3(1, 2, 3)])
        XCTAssertEqual(loaded.normals, [SIMD3(0, 0, 0)])
        XCTAssertEqual(loaded.colors, [SIMD3(128, 128, 128)])
    }

    func testAsciiWithCommentsListsQuadsAndUnknownElements() throws {
        // A vertex list property and an extra scalar must be stepped over; a quad becomes a fan of
        // two triangles; an unknown element after the faces is skipped; CRLF line ends.
        let text = [
            "ply", "format ascii 1.0", "comment hand-written", "element vertex 4",
            "property double x", "property double y", "property float z",
            "property list uchar float weights", "property float confidence",
            "property uchar red", "property uchar green", "property uchar blue",
            "element face 2", "property uchar flags", "property list uchar int vertex_indices",
            "element edge 1", "property int vertex1", "property int vertex2", "end_header",
            "0 0 0 2 0.5 0.5 0.9 255 0 0",
            "1 0 0 0 0.8 0 255 0",
            "1.5e0 1 -0.25 3 1 2 3 0.1 0 0 255",
            "0 1 2 1 7 1 10 20 30",
            "1 4 0 1 2 3",
            "0 3 0 2 3",
            "0 1", "",
        ].joined(separator: "\r\n")
        let url = directory.appendingPathComponent("ascii.ply")
        try Data(text.utf8).write(to: url)
        let cloud = try PointCloud.load(url)
        XCTAssertEqual(cloud.points, [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(1.5, 1, -0.25), SIMD3(0, 1, 2)])
        XCTAssertEqual(cloud.colors, [SIMD3(255, 0, 0), SIMD3(0, 255, 0), SIMD3(0, 0, 255), SIMD3(10, 20, 30)])
        XCTAssertNil(cloud.normals)
        XCTAssertEqual(cloud.triangles, [SIMD3(0, 1, 2), SIMD3(0, 2, 3), SIMD3(0, 2, 3)])
    }

    func testBigEndianDoublesWithNormalsAndAFaceList() throws {
        var body = Data()
        func double(_ v: Double) { withUnsafeBytes(of: v.bitPattern.bigEndian) { body.append(contentsOf: $0) } }
        func float(_ v: Float) { withUnsafeBytes(of: v.bitPattern.bigEndian) { body.append(contentsOf: $0) } }
        func int32(_ v: Int32) { withUnsafeBytes(of: v.bigEndian) { body.append(contentsOf: $0) } }
        func uint16(_ v: UInt16) { withUnsafeBytes(of: v.bigEndian) { body.append(contentsOf: $0) } }
        let vertices: [SIMD3<Double>] = [SIMD3(0.125, -2, 3), SIMD3(4, 5.5, -6), SIMD3(7, 8, 9.75), SIMD3(-1, -1, -1)]
        for (k, v) in vertices.enumerated() {
            double(v.x); double(v.y); double(v.z)
            float(0); float(Float(k)); float(1)  // nx ny nz
            uint16(UInt16(1000 + k))             // an unknown ushort property
        }
        // Face 0: a triangle with a float list before it; face 1: a quad.
        body.append(2); float(0.5); float(0.25)
        body.append(3); int32(0); int32(1); int32(2)
        body.append(0)
        body.append(4); int32(3); int32(2); int32(1); int32(0)
        let header = """
        ply
        format binary_big_endian 1.0
        element vertex 4
        property float64 x
        property float64 y
        property float64 z
        property float nx
        property float ny
        property float nz
        property ushort label
        element face 2
        property list uchar float texcoord
        property list uchar int vertex_indices
        end_header

        """
        let url = directory.appendingPathComponent("big.ply")
        try (Data(header.utf8) + body).write(to: url)
        let cloud = try PointCloud.load(url)
        XCTAssertEqual(cloud.points, vertices.map { SIMD3<Float>($0) })
        XCTAssertEqual(cloud.normals, (0..<4).map { SIMD3(0, Float($0), 1) })
        XCTAssertFalse(cloud.hasColors)
        XCTAssertEqual(cloud.triangles, [SIMD3(0, 1, 2), SIMD3(3, 2, 1), SIMD3(3, 1, 0)])
    }

    func testBrokenFilesFailWithADecodeErrorNamingTheFile() throws {
        let cases: [(String, String, String)] = [
            ("not-a-ply.ply", "plx\nformat ascii 1.0\nend_header\n", "not a PLY file"),
            ("bad-type.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flaot x\nend_header\n0\n", "unknown property type 'flaot'"),
            ("no-end.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n", "no end_header"),
            ("no-xyz.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n0\n", "lacks x, y or z"),
            ("short.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n1 10\n", "ends early"),
            ("index.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n", "refers to vertex 7"),
            ("huge.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n", "truncated"),
            ("word.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 zero 0\n", "'zero' is not a number"),
        ]
        for (name, contents, expected) in cases {
            let url = directory.appendingPathComponent(name)
            try Data(contents.utf8).write(to: url)
            XCTAssertThrowsError(try PointCloud.load(url), name) { error in
                let error = error as? CVisionError
                XCTAssertEqual(error?.code, .decodeError, name)
                XCTAssertTrue(error?.message.hasPrefix(name + ": ") == true, "\(String(describing: error))")
                XCTAssertTrue(error?.message.contains(expected) == true, "\(String(describing: error))")
            }
        }
        XCTAssertThrowsError(try PointCloud.load(directory.appendingPathComponent("missing.ply"))) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .ioError)
        }
    }

    func testCreateRefusesTrianglesOutsideThePoints() {
        XCTAssertThrowsError(try PointCloud(points: [SIMD3(0, 0, 0)], triangles: [SIMD3(0, 0, 1)])) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .invalidArgument)
        }
    }
}
