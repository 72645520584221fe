import XCTest
@testable import PhotogrammetryKit

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
    }

    func testMeshBudgets() {
        XCTAssertEqual(DetailLevel.allCases.map(\.maxTriangles), [25_000, 50_000, 100_000, 250_000, nil])
        XCTAssertEqual(DetailLevel.allCases.map(\.textureSize), [1024, 2048, 4096, 8192, 8192])
        XCTAssertEqual(DetailLevel.allCases.map(\.texturePages), [1, 1, 1, 1, nil])
    }
}
