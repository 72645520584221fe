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
        XCTAssertGreaterThanOrEqual(with.points - with.sensorPoints, without.points * 95 / 100,
                                    "the photographs' points stay (a few gain sensor observations)")

        let cloud = try PointCloud.load(filled), plainCloud = try PointCloud.load(plain)
        XCTAssertLessThan(plainCloud.points.filter { $0.x < -0.05 }.count, 5, "without sensor depth the half is empty")
        var sensorSide: [Double] = [], photometricSide: [Double] = []
        for p in cloud.points {
            let distance = abs(dot(FusionTests.planeNormal, SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z))) - FusionTests.planeOffset)
            if p.x < -0.05 { sensorSide.append(distance) } else if p.x > 0.05 { photometricSide.append(distance) }
        }
        XCTAssertGreaterThan(sensorSide.count, with.sensorPoints * 8 / 10)
        func rms(_ values: [Double]) -> Double { (values.map { $0 * $0 }.reduce(0, +) / Double(max(1, values.count))).squareRoot() }
        print("sensor side rms \(rms(sensorSide)) max \(sensorSide.max() ?? 0); photometric side rms \(rms(photometricSide)) max \(photometricSide.max() ?? 0)")
        // Sensor points: a plane fitted to 25 depths of 2 % noise has about 0.7 % left, and a
        // point averages two to four views: 0.5 % of the depth in RMS, and no point beyond the
        // 3 % within which observations agree.
        XCTAssertLessThan(rms(sensorSide), 0.005 * FusionTests.planeOffset)
        XCTAssertLessThan(sensorSide.max() ?? 0, 0.03 * FusionTests.planeOffset)
        // Photometric points weigh four times a sensor observation: they stay near the photographs'.
        XCTAssertLessThan(rms(photometricSide), 0.001 * FusionTests.planeOffset)
    }

    func testSensorDepthWithTheWrongScaleDoesNotJoinThePhotographsPoints() throws {
        // Metres taken as model units: 70 % off, far beyond the sensor's agreement limit, so no
        // photometric pixel gains a sensor observation.
        let (workspace, photometric, sensor) = try scene()
        let plain = directory.appendingPathComponent("plain.ply"), wrong = directory.appendingPathComponent("wrong.ply")
        let without = try workspace.fuse(depthMaps: photometric, neighbours: FusionTests.allNeighbours, output: plain)
        let with = try workspace.fuse(depthMaps: photometric, sensorDepths: sensor.map { ($0, 1.0) },
                                      neighbours: FusionTests.allNeighbours, output: wrong)
        XCTAssertEqual(with.points - with.sensorPoints, without.points)
    }
}
