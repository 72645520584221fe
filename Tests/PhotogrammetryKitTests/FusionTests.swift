import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Depth-map fusion on a known plane seen by four pinhole views with exact synthetic depth maps.
final class FusionTests: XCTestCase {
    static let width = 64, height = 48
    /// The plane n · X = offset (world), tilted so that depths vary across the images.
    static let planeNormal = normalize(SIMD3<Double>(0.15, -0.2, 1))
    static let planeOffset = 2.0

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("FusionTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Four cameras around the origin at z ≈ 0 looking at the plane's centre.
    static func views() -> [MVSView] {
        let centers: [SIMD3<Double>] = [SIMD3(0, 0, 0), SIMD3(0.25, 0.05, 0.02), SIMD3(-0.05, 0.25, -0.03), SIMD3(0.2, -0.2, 0.04)]
        let target = SIMD3<Double>(0.05, 0.02, 2)
        return centers.map { center in
            let z = normalize(target - center)
            let x = normalize(cross(SIMD3(0, 1, 0), z)), y = cross(z, x)
            let rotation = Matrix3(rows: x, y, z)
            return MVSView(width: width, height: height, fx: 60, fy: 60, cx: 32, cy: 24,
                           camFromWorld: Rigid3(rotation: rotation, translation: -(rotation * center)))
        }
    }

    /// The colour of the plane at a world point: red from x, green from y, blue constant.
    static func color(at p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(128 + 80 * p.x, 128 + 80 * p.y, 60)
    }

    /// The plane point seen through the centre of pixel (x, y), and its z-depth.
    static func planePoint(_ view: MVSView, x: Int, y: Int) -> (SIMD3<Double>, Double) {
        let rayCam = SIMD3((Double(x) + 0.5 - view.cx) / view.fx, (Double(y) + 0.5 - view.cy) / view.fy, 1)
        let rayWorld = view.camFromWorld.rotation.transposed * rayCam
        let center = view.camFromWorld.centerInWorld
        let depth = (planeOffset - dot(planeNormal, center)) / dot(planeNormal, rayWorld)
        return (center + depth * rayWorld, depth)
    }

    /// Writes each view's colour PNG and exact depth map (normals towards the camera); `edit`
    /// may change a view's depths, given the plane point of each pixel.
    func writeScene(edit: (Int, Int, SIMD3<Double>, inout Float) -> Void = { _, _, _, _ in })
        throws -> (MVSWorkspace, [URL]) {
        try Self.writeScene(in: directory, edit: edit)
    }

    /// The scene's files written to `directory` (as ``writeScene(edit:)``).
    static func writeScene(in directory: URL, edit: (Int, Int, SIMD3<Double>, inout Float) -> Void)
        throws -> (MVSWorkspace, [URL]) {
        let views = Self.views()
        var imageURLs: [URL] = [], depthURLs: [URL] = []
        for (i, view) in views.enumerated() {
            let map = try DepthMap(width: width, height: height)
            var pixels = [SIMD3<UInt8>](repeating: .zero, count: Self.width * Self.height)
            let normalCam = view.camFromWorld.rotation * Self.planeNormal
            let towardsCamera = dot(normalCam, SIMD3(0, 0, 1)) < 0 ? normalCam : -normalCam
            map.withDepths { depths in
                map.withNormals { normals in
                    for y in 0..<Self.height {
                        for x in 0..<Self.width {
                            let (point, depth) = Self.planePoint(view, x: x, y: y)
                            let k = y * Self.width + x
                            var value = Float(depth)
                            edit(i, k, point, &value)
                            depths[k] = value
                            for c in 0..<3 { normals[3 * k + c] = Float(towardsCamera[c]) }
                            let rgb = Self.color(at: point)
                            pixels[k] = SIMD3(UInt8(clamping: Int(rgb.x.rounded())), UInt8(clamping: Int(rgb.y.rounded())),
                                              UInt8(clamping: Int(rgb.z.rounded())))
                        }
                    }
                }
            }
            let depthURL = directory.appendingPathComponent("view\(i).depth")
            try map.save(to: depthURL)
            let imageURL = directory.appendingPathComponent("view\(i).png")
            try TestPNG.writeRGB(pixels, width: Self.width, height: Self.height, to: imageURL)
            imageURLs.append(imageURL)
            depthURLs.append(depthURL)
        }
        return (try MVSWorkspace(views: views, imageFiles: imageURLs, maskFiles: []), depthURLs)
    }

    /// Every view's neighbours: all the others.
    static let allNeighbours: [[Int]] = (0..<4).map { i in (0..<4).filter { $0 != i } }

    func testFusedPointsLieOnThePlaneOncePerSurfacePixelWithColourAndNormal() throws {
        let (workspace, depths) = try writeScene()
        let output = directory.appendingPathComponent("fused.ply")
        let count = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(), output: output).points
        let cloud = try PointCloud.load(output)
        XCTAssertEqual(cloud.pointCount, count)
        // About one point per pixel of one view: each surface pixel is fused once, not per view.
        let pixels = Self.width * Self.height
        XCTAssertGreaterThan(count, pixels * 8 / 10)
        XCTAssertLessThan(count, pixels * 13 / 10)
        let points = cloud.points.map { SIMD3<Double>($0) }
        let normals = try XCTUnwrap(cloud.normals)
        let colors = try XCTUnwrap(cloud.colors)
        var worstDistance = 0.0, worstNormalDeg = 0.0, worstColor = 0.0
        for k in points.indices {
            worstDistance = max(worstDistance, abs(dot(Self.planeNormal, points[k]) - Self.planeOffset))
            worstNormalDeg = max(worstNormalDeg, PoseComparison.vectorAngleDegrees(SIMD3<Double>(normals[k]), -Self.planeNormal))
            let expected = Self.color(at: points[k])
            let got = SIMD3<Double>(Double(colors[k].x), Double(colors[k].y), Double(colors[k].z))
            let difference = got - expected
            worstColor = max(worstColor, Swift.max(abs(difference.x), abs(difference.y), abs(difference.z)))
        }
        XCTAssertLessThan(worstDistance, 1e-4)
        XCTAssertLessThan(worstNormalDeg, 0.01)
        // The colour is linear in position, so the mean colour is the colour of the mean position
        // up to rounding; a swapped channel order would be off by far more.
        XCTAssertLessThan(worstColor, 2)
    }

    func testThreadsDoNotChangeTheOutput() throws {
        let (workspace, depths) = try writeScene()
        var options = FusionOptions()
        options.numThreads = 1
        let one = directory.appendingPathComponent("one.ply"), two = directory.appendingPathComponent("two.ply")
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: options, output: one)
        options.numThreads = 2
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: options, output: two)
        XCTAssertEqual(try Data(contentsOf: one), try Data(contentsOf: two))
    }

    func testTheHeaderCommentNamesTheCloudsUnitAndChangesNothingElse() throws {
        let (workspace, depths) = try writeScene()
        let plain = directory.appendingPathComponent("plain.ply"), metric = directory.appendingPathComponent("metric.ply")
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(), output: plain)
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(), output: metric,
                               headerComment: "lengthUnit metres")
        XCTAssertEqual(try ModelReader.plyLengthUnit(plain), .unknown)
        XCTAssertEqual(try ModelReader.plyLengthUnit(metric), .metres)
        let a = try PointCloud.load(plain), b = try PointCloud.load(metric)
        XCTAssertEqual(a.points, b.points)
        XCTAssertEqual(a.colors, b.colors)
        XCTAssertThrowsError(try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(),
                                                output: directory.appendingPathComponent("broken.ply"),
                                                headerComment: "lengthUnit metres\nend_header"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("broken.ply").path))
    }

    func testSurfaceSeenByOneViewIsDroppedUnlessOneViewSuffices() throws {
        // Views 1, 2 and 3 have no depth where x > 0.2: there only view 0 sees the plane.
        let (workspace, depths) = try writeScene { view, _, point, depth in
            if view != 0 && point.x > 0.2 { depth = 0 }
        }
        let output = directory.appendingPathComponent("fused.ply")
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(), output: output)
        // A point near the edge may average in neighbours' pixels up to a pixel (0.035) away.
        let beyond = try PointCloud.load(output).points.filter { $0.x > 0.25 }
        XCTAssertEqual(beyond.count, 0)
        var one = FusionOptions()
        one.minNumViews = 1
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: one, output: output)
        XCTAssertGreaterThan(try PointCloud.load(output).points.filter { $0.x > 0.25 }.count, 500)
    }

    func testACorruptedRegionOfOneDepthMapGivesNoPointsOffThePlane() throws {
        // View 2 puts a patch of the plane 10 % too far away.
        func inPatch(_ p: SIMD3<Double>) -> Bool { abs(p.x - 0.05) < 0.3 && abs(p.y - 0.02) < 0.3 }
        let (workspace, depths) = try writeScene { view, _, point, depth in
            if view == 2 && inPatch(point) { depth *= 1.1 }
        }
        let output = directory.appendingPathComponent("fused.ply")
        _ = try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: FusionOptions(), output: output)
        let points = try PointCloud.load(output).points.map { SIMD3<Double>($0) }
        let offPlane = points.filter { abs(dot(Self.planeNormal, $0) - Self.planeOffset) > 1e-3 }
        XCTAssertEqual(offPlane.count, 0)
        // The other three views still cover the patch (about 18 x 18 pixels).
        XCTAssertGreaterThan(points.filter(inPatch).count, 250)
    }

    func testBadArgumentsAreRefused() throws {
        let (workspace, depths) = try writeScene()
        let output = directory.appendingPathComponent("fused.ply")
        XCTAssertThrowsError(try workspace.fuse(depthMaps: depths, neighbours: [[1]], options: FusionOptions(), output: output))
        XCTAssertThrowsError(try workspace.fuse(depthMaps: depths, neighbours: [[1], [0], [9], [0]], options: FusionOptions(), output: output))
        var options = FusionOptions()
        options.minNumViews = 0
        XCTAssertThrowsError(try options.validate())
        XCTAssertThrowsError(try workspace.fuse(depthMaps: depths, neighbours: Self.allNeighbours, options: options, output: output))
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
        // A missing depth map names its file.
        var missing = depths as [URL?]
        missing[1] = directory.appendingPathComponent("missing.depth")
        XCTAssertThrowsError(try workspace.fuse(depthMaps: missing, neighbours: Self.allNeighbours, options: FusionOptions(), output: output)) { error in
            XCTAssertTrue("\(error)".contains("missing.depth"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
    }
}
