import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// Starting intrinsics from EXIF (the widest phone lens stays rectilinear, a fisheye does not) and
/// from pose priors.
final class CameraSetupTests: XCTestCase {
    func capture(focal35mm: Double) -> Capture {
        var exif = ImageMetadata(orientation: 1, focalLengthMM: 0, focalLength35mm: focal35mm, focalPlaneXResolution: 0,
                                 focalPlaneUnitMM: 0, pixelWidth: 4032, pixelHeight: 3024, make: "Phone", model: "X")
        exif.orientation = 1
        let image = CaptureImage(name: "a.jpg", url: URL(fileURLWithPath: "/nonexistent/a.jpg"), width: 4032,
                                 height: 3024, exif: exif)
        return Capture(imageRoot: URL(fileURLWithPath: "/nonexistent"), root: URL(fileURLWithPath: "/nonexistent"),
                       images: [image, image], rejected: [])
    }

    func testUltraWidePhoneLensIsRectilinearWithItsFocalLength() {
        // 13 mm equivalent: 13 / 36 of the longer side = 1456 px.
        let setup = CameraSetup(capture: capture(focal35mm: 13), fixed: nil)
        XCTAssertEqual(setup.cameras.count, 1)
        XCTAssertEqual(setup.cameras[0].model, .simpleRadial)
        XCTAssertEqual(setup.cameras[0].params[0], 13.0 / 36 * 4032, accuracy: 1e-9)
        XCTAssertEqual(setup.hasPrior[setup.cameras[0].id], true)
    }

    func testFisheyeShortFocalLengthGetsTheFisheyeModel() {
        // 8 mm equivalent is 0.22 of the longer side: below 0.3, a fisheye.
        let setup = CameraSetup(capture: capture(focal35mm: 8), fixed: nil)
        XCTAssertEqual(setup.cameras[0].model, .simpleRadialFisheye)
        XCTAssertEqual(setup.cameras[0].params.count, 4)
        // Asked for, a model is used whatever the lens.
        XCTAssertEqual(CameraSetup(capture: capture(focal35mm: 8), fixed: nil, model: .radial).cameras[0].model, .radial)
    }

    /// Priors for both images of ``capture(focal35mm:)``, each frame's intrinsics given at `size`.
    func priors(_ cameras: [Camera]) -> PosePriors {
        var byName: [String: PosePriors.Prior] = [:]
        for (n, camera) in cameras.enumerated() {
            byName[n == 0 ? "a.jpg" : "b.jpg"] = PosePriors.Prior(camFromWorld: Rigid3(), camera: camera)
        }
        return PosePriors(file: URL(fileURLWithPath: "/nonexistent/transforms.json"), byName: byName,
                          unmatchedFrames: 0, digest: "")
    }

    func twoImages(focal35mm: Double) -> Capture {
        var capture = capture(focal35mm: focal35mm)
        capture.images[1].name = "b.jpg"
        return capture
    }

    func testPriorsIntrinsicsStartTheCameraBeforeEXIF() {
        // ARKit writes per-frame intrinsics: the camera starts at their medians, not at EXIF's 26 mm.
        let given = priors([
            Camera(id: CameraID(1), model: .pinhole, width: 4032, height: 3024, params: [3000, 3010, 2010, 1500]),
            Camera(id: CameraID(1), model: .pinhole, width: 4032, height: 3024, params: [3020, 3030, 2014, 1504]),
        ])
        let setup = CameraSetup(capture: twoImages(focal35mm: 26), fixed: nil, priors: given)
        XCTAssertEqual(setup.cameras.count, 1)
        XCTAssertEqual(setup.cameras[0].model, .simpleRadial)
        XCTAssertEqual(setup.cameras[0].params, [3015, 2012, 1502, 0])
        XCTAssertEqual(setup.hasPrior[setup.cameras[0].id], true)

        // Given for the sensor's full frame (twice the images' size), they are scaled to the images.
        let sensor = priors([Camera(id: CameraID(1), model: .radial, width: 8064, height: 6048,
                                    params: [6000, 4030, 3010, -0.05, 0.01])])
        XCTAssertEqual(CameraSetup(capture: twoImages(focal35mm: 26), fixed: nil, priors: sensor).cameras[0].params,
                       [3000, 2015, 1505, -0.05])

        // A frame of another shape says nothing about these pixels: EXIF starts the camera.
        let rotated = priors([Camera(id: CameraID(1), model: .pinhole, width: 3024, height: 4032,
                                     params: [3000, 3000, 1512, 2016])])
        XCTAssertEqual(CameraSetup(capture: twoImages(focal35mm: 26), fixed: nil, priors: rotated).cameras[0].params[0],
                       26.0 / 36 * 4032, accuracy: 1e-9)

        // The user's --intrinsics win over everything.
        let fixed = FixedIntrinsics(fx: 2900, fy: 2900, cx: 2016, cy: 1512)
        XCTAssertEqual(CameraSetup(capture: twoImages(focal35mm: 26), fixed: fixed, priors: given).cameras[0].params,
                       [2900, 2900, 2016, 1512])
    }

    func testIntrinsicsParseStrictly() throws {
        XCTAssertEqual(try FixedIntrinsics(parsing: "768, 768.5,320,-2e1"), FixedIntrinsics(fx: 768, fy: 768.5, cx: 320, cy: -20))
        let refused = [
            ("768,junk,768,320,240", "5 values"),
            ("768,junk,320,240", "fy \"junk\" is not a number"),
            ("768,768,320", "3 values"),
            ("768,768,320,", "cy is empty"),
            ("inf,768,320,240", "fx \"inf\" is not a finite number"),
            ("768,768,nan,240", "cx \"nan\" is not a finite number"),
            ("0,768,320,240", "fx 0 is not above zero"),
            ("768,-1,320,240", "fy -1 is not above zero"),
            ("", "1 value"),
        ]
        for (text, reason) in refused {
            XCTAssertThrowsError(try FixedIntrinsics(parsing: text), text) { error in
                XCTAssertEqual("\(error)", reason, text)
            }
        }
    }
}
