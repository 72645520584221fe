import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
import PhotogrammetryTestSupport

/// Depth-map files and the workspace's bounded cache.
final class DepthMapTests: XCTestCase {
    func testSaveLoadRoundTrip() throws {
        let directory = try makeBridgeTestDirectory(self)
        let map = try DepthMap(width: 7, height: 5)
        XCTAssertEqual(map.validFraction, 0)
        map.withDepths { for i in $0.indices { $0[i] = Float(i) * 0.25 } }
        map.withNormals { for i in $0.indices { $0[i] = Float(i % 3) - 1 } }
        map.withCosts { for i in $0.indices { $0[i] = 1 / Float(i + 1) } }
        let url = directory.appendingPathComponent("map.dm")
        try map.save(to: url)
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + ".tmp"))
        let loaded = try DepthMap.load(url)
        XCTAssertEqual(loaded.width, 7)
        XCTAssertEqual(loaded.height, 5)
        XCTAssertEqual(loaded.withDepths { Array($0) }, map.withDepths { Array($0) })
        XCTAssertEqual(loaded.withNormals { Array($0) }, map.withNormals { Array($0) })
        XCTAssertEqual(loaded.withCosts { Array($0) }, map.withCosts { Array($0) })
        XCTAssertEqual(loaded.depth(x: 3, y: 2), Float(2 * 7 + 3) * 0.25)
        XCTAssertEqual(loaded.normal(x: 1, y: 0), SIMD3(-1, 0, 1))
        // The header and sizes as documented: 8 + 8 bytes, then 5 floats per pixel.
        XCTAssertEqual(try Data(contentsOf: url).count, 16 + 7 * 5 * 5 * 4)
    }

    func testLoadRejectsMissingAndCorruptFiles() throws {
        let directory = try makeBridgeTestDirectory(self)
        XCTAssertThrowsError(try DepthMap.load(directory.appendingPathComponent("none.dm"))) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .ioError)
        }
        let bad = directory.appendingPathComponent("bad.dm")
        try Data("CVISDM01\u{7}\0\0\0\u{5}\0\0\0truncated".utf8).write(to: bad)
        XCTAssertThrowsError(try DepthMap.load(bad)) { error in
            XCTAssertEqual((error as? CVisionError)?.code, .decodeError)
            XCTAssertTrue((error as? CVisionError)?.message.contains("bad.dm") ?? false)
        }
        XCTAssertThrowsError(try DepthMap(width: 0, height: 3))
    }

    func testWorkspaceCacheStaysWithinItsBound() throws {
        let scene = MVSTestScene(surfaces: [.plane(normal: SIMD3(0, 0, -1), offset: 0)], sources: 4, width: 64,
                                 height: 48, focal: 60)
        let directory = try makeBridgeTestDirectory(self)
        let (files, _, _) = try scene.write(to: directory)
        // One grey view is 64 * 48 * 4 bytes: the bound holds two of the five.
        let bound = 2 * 64 * 48 * 4 + 100
        let workspace = try MVSWorkspace(views: scene.views, imageFiles: files, maskFiles: [], cacheBytes: bound)
        var options = PatchMatchOptions()
        options.numIterations = 1
        for reference in 0..<5 {
            let problem = PatchMatchProblem(reference: reference, sources: (0..<5).filter { $0 != reference },
                                            depthRange: 3...5)
            try workspace.computeDepthMap(problem, options: options,
                                          output: directory.appendingPathComponent("\(reference).dm"))
            XCTAssertGreaterThan(workspace.cachedBytes, 0)
            XCTAssertLessThanOrEqual(workspace.cachedBytes, bound)
        }
        let large = try MVSWorkspace(views: scene.views, imageFiles: files, maskFiles: [])
        try large.computeDepthMap(PatchMatchProblem(reference: 0, sources: [1, 2, 3, 4], depthRange: 3...5),
                                  options: options, output: directory.appendingPathComponent("x.dm"))
        XCTAssertEqual(large.cachedBytes, 5 * 64 * 48 * 4)
        // A view whose image is missing fails the call that needs it, naming the file.
        let missing = try MVSWorkspace(views: scene.views, imageFiles: files.map { $0.appendingPathExtension("gone") },
                                       maskFiles: [])
        XCTAssertThrowsError(try missing.computeDepthMap(
            PatchMatchProblem(reference: 0, sources: [1], depthRange: 3...5), options: options,
            output: directory.appendingPathComponent("y.dm"))) { error in
            XCTAssertTrue((error as? CVisionError)?.message.contains("view00.pgm.gone") ?? false)
        }
    }
}
