import XCTest
@testable import PhotogrammetryCore
import PhotogrammetryTestSupport

/// The model's two mean reprojection errors: over observations (ours), over points (COLMAP's).
final class ReprojectionErrorTests: XCTestCase {
    /// Two points seen from one camera position: one in 2 images 1 px off, one in 4 images 3 px off.
    /// Over observations (1 + 1 + 4 × 3) / 6 = 2.33 px, the long track weighing four times; over
    /// points (1 + 3) / 2 = 2 px, as COLMAP averages.
    func testPerObservationAndPerPointMeansWeighTracksDifferently() {
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 100, height: 100, params: [100, 100, 50, 50]))
        let short = SIMD3<Double>(0, 0, 10), long = SIMD3<Double>(1, 0, 10)  // at pixels (50, 50) and (60, 50)
        for k in 1...4 {
            model.addImage(Image(id: ImageID(k), name: "\(k).png", cameraID: CameraID(1), camFromWorld: .identity,
                                 points2D: [SIMD2(50, 51), SIMD2(63, 50)]))
        }
        model.addPoint3D(Point3D(position: short, track: (1...2).map { TrackElement(imageID: ImageID($0), point2DIndex: 0) }))
        model.addPoint3D(Point3D(position: long, track: (1...4).map { TrackElement(imageID: ImageID($0), point2DIndex: 1) }))
        XCTAssertEqual(model.meanReprojectionError, 14.0 / 6, accuracy: 1e-9)
        XCTAssertEqual(model.meanReprojectionErrorPerPoint, 2, accuracy: 1e-9)
        XCTAssertEqual(Reconstruction().meanReprojectionErrorPerPoint, 0, "no points, no error")
    }
}
