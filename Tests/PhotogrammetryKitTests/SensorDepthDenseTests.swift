import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryDense
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The dense stage with sensor depth, on a rendered scene: a textured wall behind a plain grey
/// ball. The photographs measure the wall and nothing of the ball; each view's sensor depth, in
/// metres of a model whose unit is half a metre, fills the ball, and one view whose depth is 30 %
/// off (another frame's, say) is refused by name.
final class SensorDepthDenseTests: XCTestCase {
    static let unitsPerMetre = 2.0
    static let ballCentre = SIMD3<Double>(0, 0, 0), ballRadius = 1.0

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-sensor-dense-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testSensorDepthFillsWhatThePhotographsCannotMeasureAndRefusesAViewThatDisagrees() throws {
        let folder = try temporaryDirectory()
        var scene = MVSTestScene(surfaces: [.sphere(center: Self.ballCentre, radius: Self.ballRadius),
                                            .plane(normal: SIMD3(0, 0, -1), offset: 1.5)], sources: 5)
        scene.sphereTone = (mean: 0.5, contrast: 0)  // no texture at all: nothing to match
        var model = Reconstruction()
        let first = scene.views[0]
        model.addCamera(Camera(id: CameraID(1), model: .pinhole, width: first.width, height: first.height,
                               params: [first.fx, first.fy, first.cx, first.cy]))
        // Sparse points on the wall around the ball, seen by every view.
        var wall: [SIMD3<Double>] = []
        for gx in -5...5 {
            for gy in -4...4 {
                let p = SIMD3(0.3 * Double(gx), 0.3 * Double(gy), 1.5)
                if (p.x * p.x + p.y * p.y).squareRoot() > 1.5 { wall.append(p) }
            }
        }
        var inputs: [ImageID: DenseReconstruction.Input] = [:]
        var depths: [String: [Float]] = [:]
        for (index, view) in scene.views.enumerated() {
            let name = String(format: "view%02d.png", index)
            let rendered = scene.render(index)
            let url = folder.appendingPathComponent(name)
            try TestPNG.writeGrey(rendered.pixels, width: view.width, height: view.height, to: url)
            depths[name] = rendered.depth.map { $0 / Float(Self.unitsPerMetre) }
            let points = wall.map { p -> SIMD2<Double> in
                let c = view.camFromWorld.apply(p)
                return SIMD2(view.fx * c.x / c.z + view.cx, view.fy * c.y / c.z + view.cy)
            }
            let id = ImageID(index + 1)
            model.addImage(Image(id: id, name: name, cameraID: CameraID(1), camFromWorld: view.camFromWorld, points2D: points))
            inputs[id] = DenseReconstruction.Input(name: name, url: url)
        }
        for (k, p) in wall.enumerated() {
            model.addPoint3D(Point3D(position: p, track: scene.views.indices.map { TrackElement(imageID: ImageID($0 + 1), point2DIndex: k) }))
        }
        let disagreeing = "view03.png", metresByName = depths
        let source = DenseReconstruction.SensorDepthSource(key: "test") { name in
            guard let metres = metresByName[name] else { return nil }
            let factor: Float = name == disagreeing ? 1.3 : 1
            return MetricDepthImage(width: first.width, height: first.height, metres: metres.map { $0 * factor })
        }

        func run(_ sensor: DenseReconstruction.SensorDepthSource?, _ name: String) throws -> (DenseReconstruction.Result, PointCloud) {
            let out = folder.appendingPathComponent(name)
            var options = DenseOptions()
            options.detail = .raw
            let stage = DenseReconstruction(model: model, inputs: inputs, options: options,
                                            directory: out.appendingPathComponent("work"),
                                            cloudURL: out.appendingPathComponent("dense.ply"), threads: 2, progress: nil,
                                            sensorDepth: sensor)
            let result = try stage.run()
            return (result, try PointCloud.load(out.appendingPathComponent("dense.ply")))
        }
        let (plain, plainCloud) = try run(nil, "plain")
        let (filled, filledCloud) = try run(source, "filled")

        XCTAssertEqual(filled.refusedSensorDepth.map(\.name), [disagreeing])
        XCTAssertTrue(filled.refusedSensorDepth.first?.reason.contains("disagrees with the photographs") == true)
        XCTAssertEqual(filled.sensorViews, scene.views.count - 1)
        XCTAssertEqual(plain.sensorPoints, 0)
        func onBall(_ cloud: PointCloud) -> [Double] {
            cloud.points.map { p in abs(length(SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z)) - Self.ballCentre) - Self.ballRadius) }
                .filter { $0 < 0.1 }
        }
        XCTAssertLessThan(onBall(plainCloud).count, 50, "the photographs measure nothing of the plain ball")
        let ball = onBall(filledCloud)
        XCTAssertGreaterThan(ball.count, 2_000, "the sensor fills the ball")
        XCTAssertGreaterThan(filled.sensorPoints, ball.count * 9 / 10)
        // Exact depth, brought into the views and scaled by the wall's pixels: on the ball to a
        // fraction of the 4 % within which neighbouring depth pixels are one surface.
        let rms = (ball.map { $0 * $0 }.reduce(0, +) / Double(ball.count)).squareRoot()
        XCTAssertLessThan(rms, 0.01 * Self.ballRadius)
        // Every point has a normal, which meshing needs: the sensor's pixels at the rim of a hole,
        // whose normal cannot be told, are not used.
        let normals = try XCTUnwrap(filledCloud.normals)
        XCTAssertEqual(normals.filter { length(SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z))) < 0.5 }.count, 0)
        // The wall the photographs measured keeps their points.
        XCTAssertGreaterThanOrEqual(filled.points - filled.sensorPoints, plain.points * 95 / 100)
    }
}
