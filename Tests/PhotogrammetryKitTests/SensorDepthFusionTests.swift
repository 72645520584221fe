import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryDense
import PhotogrammetryTestSupport

/// Sensor depth (a phone's LiDAR) joining fusion where the photographs' depth maps are empty, on
/// FusionTests' known plane: half of it has no photometric depth (a plain wall), and every view
/// has a coarse, noisy sensor depth image in metres of a model whose unit is not the metre.
final class SensorDepthFusionTests: XCTestCase {
    /// Model units per metre: the sensor's metres must be scaled by it.
    static let unitsPerMetre = 1.7
    static let sensorWidth = 32, sensorHeight = 24
    /// A phone's per-pixel noise, relative (the worst of its 1–2 %).
    static let noise = 0.02

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("SensorDepthFusionTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The scene with no photometric depth where the plane's x < 0, and each view's sensor depth map.
    func scene() throws -> (MVSWorkspace, [URL], [URL]) {
        let (workspace, photometric) = try FusionTests.writeScene(in: directory) { _, _, point, depth in
            if point.x < 0 { depth = 0 }
        }
        var random = SplitMix64(seed: 7)
        var sensor: [URL] = []
        for (i, view) in FusionTests.views().enumerated() {
            // The sensor's pixel (sx, sy) covers 2 x 2 view pixels; its depth is the plane's at its centre.
            var metres = [Float](repeating: 0, count: Self.sensorWidth * Self.sensorHeight)
            for sy in 0..<Self.sensorHeight {
                for sx in 0..<Self.sensorWidth {
                    var centre = view
                    centre.cx -= 0.5  // the plane through the sensor pixel's centre: view pixel (2sx + 0.5, 2sy + 0.5)
                    centre.cy -= 0.5
                    let (_, depth) = FusionTests.planePoint(centre, x: 2 * sx, y: 2 * sy)
                    let gaussian = random.gaussian()
                    metres[sy * Self.sensorWidth + sx] = Float(depth / Self.unitsPerMetre * (1 + Self.noise * gaussian))
                }
            }
            let camera = Camera(id: CameraID(1), model: .pinhole, width: FusionTests.width, height: FusionTests.height,
                                params: [view.fx, view.fy, view.cx, view.cy])
            let url = directory.appendingPathComponent("view\(i).sensor")
            let valid = try workspace.sensorDepthMap(view: i, depth: metres, confidence: nil, width: Self.sensorWidth,
                                                     height: Self.sensorHeight, minConfidence: 0, camera: camera, output: url)
            XCTAssertGreaterThan(valid, FusionTests.width * FusionTests.height * 8 / 10, "view \(i)")
            sensor.append(url)
        }
        return (workspace, photometric, sensor)
    }

    func testSensorDepthScaleIsFoundFromThePixelsThePhotographsMeasured() throws {
        let (_, photometric, sensor) = try scene()
        for (measured, sensorMap) in zip(photometric, sensor) {
            let ratio = try MVSWorkspace.depthRatio(measured: measured, sensor: sensorMap)
            XCTAssertEqual(ratio.median, Self.unitsPerMetre, accuracy: 0.01 * Self.unitsPerMetre)
            XCTAssertLessThan(ratio.spread, 0.01, "the smoothed sensor's scatter about the photographs")
            XCTAssertGreaterThan(ratio.count, 500)
        }
    }

    func testSensorDepthFillsWhatThePhotographsLeftEmptyAndKeepsTheirPoints() throws {
        let (workspace, photometric, sensor) = try scene()
        let plain = directory.appendingPathComponent("plain.ply"), filled = directory.appendingPathComponent("filled.ply")
        let without = try workspace.fuse(depthMaps: photometric, neighbours: FusionTests.allNeighbours, output: plain)
        let with = try workspace.fuse(depthMaps: photometric, sensorDepths: sensor.map { ($0, Self.unitsPerMetre) },
                                      neighbours: FusionTests.allNeighbours, output: filled)
        XCTAssertEqual(without.sensorPoints, 0)
        XCTAssertGreaterThan(with.sensorPoints, without.points / 2, "the empty half is filled")
        XCTAssertEqual(with.points - with.sensorPoints, without.points, "the photographs' points are those without the sensor")

        let cloud = try PointCloud.load(filled), plainCloud = try PointCloud.load(plain)
        XCTAssertLessThan(plainCloud.points.filter { $0.x < -0.05 }.count, 5, "without sensor depth the half is empty")
        var sensorSide: [Double] = [], photometricSide: [Double] = []
        for p in cloud.points {
            let distance = abs(dot(FusionTests.planeNormal, SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z))) - FusionTests.planeOffset)
            if p.x < -0.05 { sensorSide.append(distance) } else if p.x > 0.05 { photometricSide.append(distance) }
        }
        XCTAssertGreaterThan(sensorSide.count, with.sensorPoints * 8 / 10)
        func rms(_ values: [Double]) -> Double { (values.map { $0 * $0 }.reduce(0, +) / Double(max(1, values.count))).squareRoot() }
        // Sensor points: a plane fitted to 25 depths of 2 % noise has about 0.7 % left, and a
        // point averages two to four views: 0.5 % of the depth in RMS, and no point beyond the
        // 3 % within which observations agree.
        XCTAssertLessThan(rms(sensorSide), 0.005 * FusionTests.planeOffset)
        XCTAssertLessThan(sensorSide.max() ?? 0, 0.03 * FusionTests.planeOffset)
        // The photographs' points: exact, as their maps.
        XCTAssertLessThan(rms(photometricSide), 1e-5 * FusionTests.planeOffset)
    }

    func testPhotometricDepthTooScatteredToAgreeIsFilledBySensorDepth() throws {
        // Where x > 0.1 the photographs' depths scatter by ±8 % pixel to pixel (a plain wall's
        // PatchMatch): with three views asked, as for rooms, few pixels find two neighbours
        // within 1 %, so without the sensor that side stays nearly empty.
        let (workspace, _, sensor) = try scene()
        let folder = directory.appendingPathComponent("scattered")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var random = SplitMix64(seed: 3)
        let (_, scattered) = try FusionTests.writeScene(in: folder) { _, _, point, depth in
            if point.x < 0 { depth = 0 } else if point.x > 0.1 { depth *= Float(1 + 0.08 * (2 * random.uniform() - 1)) }
        }
        var options = FusionOptions()
        options.minNumViews = 3
        let plain = directory.appendingPathComponent("plain.ply"), filled = directory.appendingPathComponent("filled.ply")
        _ = try workspace.fuse(depthMaps: scattered, neighbours: FusionTests.allNeighbours, options: options, output: plain)
        _ = try workspace.fuse(depthMaps: scattered, sensorDepths: sensor.map { ($0, Self.unitsPerMetre) },
                               neighbours: FusionTests.allNeighbours, options: options, output: filled)
        let scatteredSide = { (cloud: PointCloud) in cloud.points.filter { $0.x > 0.15 }.count }
        let before = scatteredSide(try PointCloud.load(plain)), after = scatteredSide(try PointCloud.load(filled))
        XCTAssertGreaterThan(after, 500)
        XCTAssertGreaterThan(after, 5 * before, "the sensor fills what the scattered photographs could not agree on")
    }

    func testSensorDepthWithTheWrongScaleMakesNoPointOnThePhotographsSurface() throws {
        // Metres taken as model units: 70 % off. The photographs' points are unchanged, and the
        // sensor's own points lie off the surface the photographs measured, where the dense
        // stage's scale check (SensorDepthDenseTests) keeps such depth out.
        let (workspace, photometric, sensor) = try scene()
        let plain = directory.appendingPathComponent("plain.ply"), wrong = directory.appendingPathComponent("wrong.ply")
        let without = try workspace.fuse(depthMaps: photometric, neighbours: FusionTests.allNeighbours, output: plain)
        let with = try workspace.fuse(depthMaps: photometric, sensorDepths: sensor.map { ($0, 1.0) },
                                      neighbours: FusionTests.allNeighbours, output: wrong)
        XCTAssertEqual(with.points - with.sensorPoints, without.points)
    }

    /// Distances of the cloud's points with x < -0.05 (where the photographs have no depth) to
    /// the true plane, in model units.
    static func sensorSideDistances(_ cloud: PointCloud) -> [Double] {
        cloud.points.filter { $0.x < -0.05 }.map {
            abs(dot(FusionTests.planeNormal, SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z))) - FusionTests.planeOffset)
        }
    }

    func testTwoSensorViewsAgreeingMakeAPointWhereThePhotographsNeedThree() throws {
        // Only views 0 and 1 carry sensor depth: a surface two frames measured. The photographs
        // are asked for three views, as for rooms; the sensor for two by default.
        let (workspace, photometric, sensor) = try scene()
        let two: [(url: URL, scale: Double)?] = sensor.enumerated().map { $0.offset < 2 ? ($0.element, Self.unitsPerMetre) : nil }
        var options = FusionOptions()
        options.minNumViews = 3
        let kept = directory.appendingPathComponent("two.ply"), dropped = directory.appendingPathComponent("three.ply")
        let made = try workspace.fuse(depthMaps: photometric, sensorDepths: two, neighbours: FusionTests.allNeighbours,
                                      options: options, output: kept)
        options.minNumSensorViews = 3
        let none = try workspace.fuse(depthMaps: photometric, sensorDepths: two, neighbours: FusionTests.allNeighbours,
                                      options: options, output: dropped)
        XCTAssertEqual(none.sensorPoints, 0, "two sensor views cannot make a three-view point")
        XCTAssertEqual(made.points - made.sensorPoints, none.points, "the photographs' points do not change")
        // The empty half of a view is about half its 3072 pixels; a point takes one pixel of each view.
        XCTAssertGreaterThan(made.sensorPoints, FusionTests.width * FusionTests.height / 4)
        // Two views' smoothed depths (0.7 % RMS each, 2 % noise before smoothing) averaged: about
        // 0.5 % of the depth, and no point beyond the 3 % within which they agree.
        let distances = Self.sensorSideDistances(try PointCloud.load(kept))
        XCTAssertGreaterThan(distances.count, made.sensorPoints * 8 / 10)
        let rms = (distances.map { $0 * $0 }.reduce(0, +) / Double(distances.count)).squareRoot()
        XCTAssertLessThan(rms, 0.006 * FusionTests.planeOffset)
        XCTAssertLessThan(distances.max() ?? 0, 0.03 * FusionTests.planeOffset)
    }

    func testSensorPassFindsTheViewsSharingItsSurfaceWithoutPhotometricNeighbours() throws {
        // No view lists another (a plain wall's sparse points too few to rank photometric
        // sources): the sensor pass checks each view against the views whose sensor depth lies on
        // the same surface, and fills the plane as when every view lists every other.
        let (workspace, _, sensor) = try scene()
        let noPhotographs = [URL?](repeating: nil, count: 4)
        let scaled = sensor.map { Optional(($0, Self.unitsPerMetre)) }
        let unlisted = [[Int]](repeating: [], count: 4)
        let found = directory.appendingPathComponent("found.ply"), listed = directory.appendingPathComponent("listed.ply")
        let alone = directory.appendingPathComponent("alone.ply")
        let byOverlap = try workspace.fuse(depthMaps: noPhotographs, sensorDepths: scaled, neighbours: unlisted, output: found)
        let byList = try workspace.fuse(depthMaps: noPhotographs, sensorDepths: scaled, neighbours: FusionTests.allNeighbours,
                                        output: listed)
        var options = FusionOptions()
        options.numSensorNeighbours = 0
        let none = try workspace.fuse(depthMaps: noPhotographs, sensorDepths: scaled, neighbours: unlisted, options: options,
                                      output: alone)
        XCTAssertEqual(none.points, 0, "without neighbours of either kind no view has another to agree with")
        XCTAssertGreaterThan(byList.sensorPoints, FusionTests.width * FusionTests.height / 2)
        XCTAssertEqual(Double(byOverlap.sensorPoints), Double(byList.sensorPoints), accuracy: 0.05 * Double(byList.sensorPoints))
        let cloud = try PointCloud.load(found)
        let distances = cloud.points.map {
            abs(dot(FusionTests.planeNormal, SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z))) - FusionTests.planeOffset)
        }
        let rms = (distances.map { $0 * $0 }.reduce(0, +) / Double(max(1, distances.count))).squareRoot()
        XCTAssertLessThan(rms, 0.005 * FusionTests.planeOffset)
        XCTAssertLessThan(distances.max() ?? 0, 0.03 * FusionTests.planeOffset)
    }
}
