import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Source-view ranking and depth ranges on a seeded synthetic ring of cameras.
final class NeighbourViewTests: XCTestCase {
    /// Twelve cameras 30° apart around a box of points, every point seen by every camera.
    private func ringScene(seed: UInt64 = 7) -> SyntheticScene {
        var options = SyntheticScene.Options()
        options.numImages = 12
        options.numPoints = 300
        options.pixelNoise = 0.5
        options.seed = seed
        return SyntheticScene(options)
    }

    /// The true z-depths of the points an image observes.
    private func trueDepths(_ scene: SyntheticScene, _ id: ImageID) -> [Double] {
        let image = scene.reconstruction.images[id]!
        return image.point3DIDs.compactMap { $0 }.map { image.camFromWorld!.apply(scene.truePoints[$0]!).z }
    }

    func testRingNeighboursAreAdjacentCameras() {
        let scene = ringScene()
        let plan = NeighbourViews(model: scene.reconstruction)
        XCTAssertEqual(plan.views.map(\.imageID), scene.imageIDs)
        let n = scene.imageIDs.count
        for view in plan.views {
            let i = view.imageID.rawValue - 1
            let adjacent: Set = [ImageID((i + 1) % n + 1), ImageID((i + n - 1) % n + 1)]
            XCTAssertEqual(Set(view.sources.prefix(2)), adjacent, "image \(i + 1): sources \(view.sources)")
            XCTAssertLessThanOrEqual(view.sources.count, 6)
            XCTAssertEqual(view.sources.count, view.scores.count)
            XCTAssertEqual(view.scores, view.scores.sorted(by: >))
            XCTAssertFalse(view.sources.contains(view.imageID))
            // Opposite and quarter-turn cameras see the points at 90°–180°: never sources.
            for offset in 3...9 {
                XCTAssertFalse(view.sources.contains(ImageID((i + offset) % n + 1)),
                               "image \(i + 1) picked a camera \(offset * 30)° away")
            }
        }
    }

    func testDepthRangeHoldsTrueDepths() throws {
        let scene = ringScene()
        let plan = NeighbourViews(model: scene.reconstruction)
        for view in plan.views {
            let depths = trueDepths(scene, view.imageID)
            let range = try XCTUnwrap(view.depthRange)
            XCTAssertLessThanOrEqual(range.lowerBound, depths.min()!)
            XCTAssertGreaterThanOrEqual(range.upperBound, depths.max()!)
            // Widened by a quarter, not by orders of magnitude.
            XCTAssertGreaterThan(range.lowerBound, 0.5 * depths.min()!)
            XCTAssertLessThan(range.upperBound, 1.5 * depths.max()!)
            XCTAssertEqual(view.pointsInWorld.count, depths.count)
        }
    }

    func testImageWithoutObservationsFallsBackToPointsInFrame() throws {
        var scene = ringScene()
        let id = ImageID(4)
        let depths = trueDepths(scene, id)
        let image = scene.reconstruction.images[id]!
        for (index, pointID) in image.point3DIDs.enumerated() {
            if let pointID { scene.reconstruction.deleteObservation(TrackElement(imageID: id, point2DIndex: index), from: pointID) }
        }
        let view = try XCTUnwrap(NeighbourViews(model: scene.reconstruction)[id])
        XCTAssertTrue(view.sources.isEmpty)
        XCTAssertTrue(view.pointsInWorld.isEmpty)
        let range = try XCTUnwrap(view.depthRange)
        XCTAssertLessThanOrEqual(range.lowerBound, depths.min()!)
        XCTAssertGreaterThanOrEqual(range.upperBound, depths.max()!)
    }

    func testWeights() {
        let options = NeighbourViews.Options()
        XCTAssertEqual(NeighbourViews.angleWeight(1, options), 0.04, accuracy: 1e-12)
        XCTAssertEqual(NeighbourViews.angleWeight(5, options), 1)
        XCTAssertEqual(NeighbourViews.angleWeight(30, options), 1)
        XCTAssertEqual(NeighbourViews.angleWeight(60, options), 0.5, accuracy: 1e-12)
        XCTAssertEqual(NeighbourViews.angleWeight(120, options), 0)
        XCTAssertEqual(NeighbourViews.resolutionWeight(1, 1.5, options), 1)
        XCTAssertEqual(NeighbourViews.resolutionWeight(3.2, 1, options), 0.25, accuracy: 1e-12)
        XCTAssertEqual(NeighbourViews.resolutionWeight(1, 3.2, options), 0.25, accuracy: 1e-12)
        XCTAssertNoThrow(try options.validate())
        var bad = options
        bad.numSources = 0
        XCTAssertThrowsError(try bad.validate())
        bad = options
        bad.maxTriangulationAngleDeg = 30
        XCTAssertThrowsError(try bad.validate())
    }

    func testDeterministic() {
        let scene = ringScene(seed: 11)
        let a = NeighbourViews(model: scene.reconstruction), b = NeighbourViews(model: scene.reconstruction)
        XCTAssertEqual(a.views.map(\.sources), b.views.map(\.sources))
        XCTAssertEqual(a.views.map(\.scores), b.views.map(\.scores))
        XCTAssertEqual(a.views.map(\.depthRange), b.views.map(\.depthRange))
    }
}
