import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Detail levels: names, working resolutions (never upscaled) and the mesh budgets of DESIGN.md.
final class DetailLevelTests: XCTestCase {
    func testParsing() {
        XCTAssertEqual(DetailLevel.allCases.map(\.rawValue), ["preview", "reduced", "medium", "full", "raw"])
        for level in DetailLevel.allCases {
            XCTAssertEqual(DetailLevel(parsing: level.rawValue), level)
            XCTAssertEqual(DetailLevel(parsing: level.rawValue.uppercased()), level)
        }
        XCTAssertNil(DetailLevel(parsing: "ultra"))
        XCTAssertNil(DetailLevel(parsing: ""))
        XCTAssertEqual(DetailLevel.names, "preview|reduced|medium|full|raw")
        XCTAssertEqual(ReconstructionOptions().detail, .full)
        XCTAssertTrue(DetailLevel.preview < .reduced && .reduced < .medium && .medium < .full && .full < .raw)
    }

    /// The sizes of the rule the undistortion applies (`cvis_mvs_working_size`, which
    /// ``DetailLevel/denseWorkingSize(width:height:)`` calls).
    func testWorkingResolution() {
        XCTAssertEqual(DetailLevel.allCases.map(\.denseMaxImageSide), [640, 960, 1280, 1920, nil])
        // A 12 MP 4:3 phone frame.
        let sizes = DetailLevel.allCases.map { $0.denseWorkingSize(width: 4032, height: 3024) }
        XCTAssertEqual(sizes.map(\.width), [640, 960, 1280, 1920, 4032])
        XCTAssertEqual(sizes.map(\.height), [480, 720, 960, 1440, 3024])
        // Portrait keeps its aspect; the longer side is the height.
        let portrait = DetailLevel.medium.denseWorkingSize(width: 3000, height: 4000)
        XCTAssertEqual(portrait.width, 960)
        XCTAssertEqual(portrait.height, 1280)
        // Never upscaled: a 640 x 480 capture stays so at every level.
        for level in DetailLevel.allCases {
            let size = level.denseWorkingSize(width: 640, height: 480)
            XCTAssertEqual(size.width, 640)
            XCTAssertEqual(size.height, 480)
        }
        // Lower levels work on fewer pixels: the point of them being faster.
        let pixels = sizes.map { $0.width * $0.height }
        XCTAssertEqual(pixels, pixels.sorted())
        // The longer side lands on the level's side exactly, the other rounds to the nearest.
        let odd = DetailLevel.preview.denseWorkingSize(width: 700, height: 501)
        XCTAssertEqual(odd.width, 640)
        XCTAssertEqual(odd.height, 458, "501 * 640 / 700 = 458.06")
        let tall = DetailLevel.preview.denseWorkingSize(width: 1, height: 5000)
        XCTAssertEqual(tall.width, 1, "never below one pixel")
        XCTAssertEqual(tall.height, 640)
    }

    /// The views the dense stage makes have exactly the size the level promises: the
    /// undistortion of real files, landscape and portrait, at preview and raw.
    func testUndistortedViewsHaveTheWorkingSize() throws {
        let directory = try makeBridgeTestDirectory(self)
        for (width, height) in [(700, 501), (501, 700)] {
            let input = directory.appendingPathComponent("\(width)x\(height).png")
            let pixels = (0..<(width * height)).map { i -> UInt8 in UInt8((i % width + i / width) % 251) }
            try TestPNG.writeGrey(pixels, width: width, height: height, to: input)
            let camera = Camera(id: CameraID(1), model: .simpleRadial, width: width, height: height,
                                params: [600, Double(width) / 2, Double(height) / 2, 0])
            for level in [DetailLevel.preview, .raw] {
                let view = try Undistortion.undistort(
                    image: input, maskFile: nil, keepRect: nil, camera: camera, maxSide: level.denseMaxImageSide ?? 0,
                    outputImage: directory.appendingPathComponent("view.png"), outputMask: nil)
                let promised = level.denseWorkingSize(width: width, height: height)
                XCTAssertEqual(view.width, promised.width, "\(level) \(width)x\(height)")
                XCTAssertEqual(view.height, promised.height, "\(level) \(width)x\(height)")
            }
        }
    }

    func testMeshBudgets() {
        XCTAssertEqual(DetailLevel.allCases.map(\.maxTriangles), [25_000, 50_000, 100_000, 250_000, nil])
        XCTAssertEqual(DetailLevel.allCases.map(\.textureSize), [1024, 2048, 4096, 8192, 8192])
        XCTAssertEqual(DetailLevel.allCases.map(\.maxTexturePages), [1, 1, 1, 1, 8])
    }
}
