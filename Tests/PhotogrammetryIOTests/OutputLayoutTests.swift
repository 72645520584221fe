import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
import PhotogrammetryTestSupport

/// OUTPUT names a folder or a model file; every name inside comes from one type.
final class OutputLayoutTests: XCTestCase {
    func testAFolderHoldsTheDesignedNames() {
        let layout = OutputLayout(output: URL(fileURLWithPath: "/tmp/run"))
        XCTAssertNil(layout.modelFile)
        XCTAssertEqual(layout.root.path, "/tmp/run")
        XCTAssertEqual(layout.sparse().path, "/tmp/run/sparse")
        XCTAssertEqual(layout.sparse(1).path, "/tmp/run/sparse-2")
        XCTAssertEqual(layout.reportJSON.path, "/tmp/run/report.json")
        XCTAssertEqual(layout.reportHTML.path, "/tmp/run/report.html")
        XCTAssertEqual(layout.denseCloud.path, "/tmp/run/dense.ply")
        XCTAssertEqual(layout.work.path, "/tmp/run/work")
        XCTAssertEqual(layout.denseWork.path, "/tmp/run/work/dense")
        XCTAssertEqual(OutputLayout.unpackedInput(in: layout.work).path, "/tmp/run/work/input")
    }

    func testAModelFileKeepsItsWorkingFilesInAFolderBesideIt() {
        for name in ["chair.usdz", "chair.GLB", "chair.obj", "chair.ply", "chair.stl"] {
            let layout = OutputLayout(output: URL(fileURLWithPath: "/tmp/out/" + name))
            XCTAssertEqual(layout.modelFile?.lastPathComponent, name)
            XCTAssertEqual(layout.root.path, "/tmp/out/chair", name)
            XCTAssertEqual(layout.reportJSON.path, "/tmp/out/chair/report.json", name)
        }
        // A folder whose name has a dot stays a folder.
        XCTAssertNil(OutputLayout(output: URL(fileURLWithPath: "/tmp/out/scan.2026")).modelFile)
    }

    func testTheModelFilesHaveTheDesignedNames() {
        let layout = OutputLayout(output: URL(fileURLWithPath: "/tmp/run"))
        XCTAssertEqual([layout.modelUSDZ, layout.modelGLB, layout.modelOBJ, layout.modelMTL, layout.modelPLY, layout.modelSTL].map(\.path),
                       ["/tmp/run/model.usdz", "/tmp/run/model.glb", "/tmp/run/model.obj", "/tmp/run/model.mtl",
                        "/tmp/run/model.ply", "/tmp/run/model.stl"])
        XCTAssertEqual(layout.folderModels.map(\.lastPathComponent), ["model.usdz", "model.glb", "model.obj"])
        XCTAssertEqual(Set(ModelFormat.allCases.map(\.rawValue)), OutputLayout.modelFileExtensions)
    }
}
