import XCTest
@testable import PhotogrammetryKit

/// Starting intrinsics from EXIF: the widest phone lens stays rectilinear, a fisheye does not.
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
