import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
import PhotogrammetryTestSupport

/// The diagnosis stage on synthetic models: capture kind, null measures with a reason, and
/// advice that names each failure's fix.
final class CaptureDiagnosisTests: XCTestCase {
    /// A model whose registered images sit at `centers` looking at `targets`, and a report that
    /// lists them as registered.
    func makeModel(centers: [SIMD3<Double>], targets: [SIMD3<Double>]) -> (Reconstruction, Report) {
        var model = Reconstruction()
        model.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 640, height: 480, params: [500, 500, 320, 240]))
        var report = Report()
        for (i, center) in centers.enumerated() {
            let pose = SyntheticScene.lookAt(from: center, to: targets[i])
            let name = String(format: "%04d.jpg", i)
            model.addImage(Image(id: ImageID(i + 1), name: name, cameraID: CameraID(1), camFromWorld: pose, points2D: []))
            var entry = ReportImage(name: name, status: "registered")
            entry.features = 2000
            report.images.append(entry)
        }
        report.imagesTotal = centers.count
        report.imagesRegistered = centers.count
        report.alignmentRatio = 1
        return (model, report)
    }

    func ring(count: Int, arcDeg: Double, height: Double) -> [SIMD3<Double>] {
        (0..<count).map { k in
            let a = arcDeg * Double(k) / Double(count) * .pi / 180
            return SIMD3(4 * cos(a), 4 * sin(a), height)
        }
    }

    func testFullRingAtOneHeightIsOrbitWithElevationAdvice() {
        let centers = ring(count: 24, arcDeg: 360, height: 1.5)
        var (model, report) = makeModel(centers: centers, targets: Array(repeating: .zero, count: 24))
        CaptureDiagnosis.diagnose(model, context: .init(), report: &report)
        XCTAssertEqual(report.captureKind, "orbit")
        XCTAssertEqual(report.azimuthCoverageDeg ?? 0, 345, accuracy: 1)
        XCTAssertEqual(report.elevationSpreadDeg ?? 99, 0, accuracy: 1)
        XCTAssertEqual(report.coverageSectors?.joined().reduce(0, +), 24)
        XCTAssertEqual(report.advice.count, 1)
        XCTAssertTrue(report.advice[0].hasPrefix("Elevation:"), report.advice[0])
        XCTAssertNotNil(report.images[3].azimuthDeg)
        model.images[ImageID(1)]!.camFromWorld = nil  // unregistered images take no part
        CaptureDiagnosis.diagnose(model, context: .init(), report: &report)
        XCTAssertEqual(report.coverageSectors?.joined().reduce(0, +), 23)
    }

    func testHalfRingAsksForTheRestOfTheCircle() {
        let centers = ring(count: 12, arcDeg: 180, height: 1) + ring(count: 12, arcDeg: 180, height: 4)
        var (model, report) = makeModel(centers: centers, targets: Array(repeating: .zero, count: 24))
        CaptureDiagnosis.diagnose(model, context: .init(turntable: true), report: &report)
        XCTAssertEqual(report.captureKind, "turntable")
        XCTAssertEqual(report.azimuthCoverageDeg ?? 0, 165, accuracy: 1)
        XCTAssertGreaterThan(report.elevationSpreadDeg ?? 0, 30)
        XCTAssertEqual(report.advice.count, 1)
        XCTAssertTrue(report.advice[0].hasPrefix("Coverage:") && report.advice[0].contains("turn the object"), report.advice[0])
        XCTAssertTrue(report.advice[0].contains("of 16 sectors empty"))
    }

    func testWalkthroughHasNullMeasuresWithAReason() {
        // A loop inside a room, every camera looking outward.
        let centers = ring(count: 20, arcDeg: 360, height: 1.6)
        let targets = centers.map { SIMD3($0.x * 3, $0.y * 3, 1.6) }
        var (model, report) = makeModel(centers: centers, targets: targets)
        CaptureDiagnosis.diagnose(model, context: .init(), report: &report)
        XCTAssertEqual(report.captureKind, "walkthrough")
        XCTAssertNil(report.azimuthCoverageDeg)
        XCTAssertNil(report.elevationSpreadDeg)
        XCTAssertTrue(report.angularMeasuresNote?.contains("walk-through") == true)
        XCTAssertNil(report.images[0].azimuthDeg)
        XCTAssertNotNil(report.images[0].centerTop, "the top view still shows the path")
        XCTAssertTrue(report.advice[0].hasPrefix("Good capture"), report.advice[0])
        let data = try! report.jsonData()
        let json = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        XCTAssertTrue(json["azimuth_coverage_deg"] is NSNull, "null, not absent")

        // --room says so even for an object-like layout.
        let orbit = ring(count: 12, arcDeg: 360, height: 1)
        var (roomModel, roomReport) = makeModel(centers: orbit, targets: Array(repeating: .zero, count: 12))
        CaptureDiagnosis.diagnose(roomModel, context: .init(room: true), report: &roomReport)
        XCTAssertEqual(roomReport.captureKind, "walkthrough")
        roomModel.images = [:]
        CaptureDiagnosis.diagnose(roomModel, context: .init(), report: &roomReport)
        XCTAssertNotNil(roomReport.angularMeasuresNote)
    }

    func testAlignmentAdviceSeparatesBlurTextureAndOverlap() {
        var report = Report()
        report.imagesTotal = 10
        report.imagesRegistered = 6
        report.alignmentRatio = 6.0 / 9.0
        for k in 0..<6 {
            var entry = ReportImage(name: "r\(k).jpg", status: "registered")
            entry.features = 3000
            report.images.append(entry)
        }
        report.images.append(ReportImage(name: "b.jpg", status: "rejected", reason: "blurred: sharpness 0.001 below 0.01"))
        report.rejectedImages.append(RejectedImage(name: "b.jpg", reason: "blurred"))
        var plain = ReportImage(name: "wall.jpg", status: "unregistered")
        plain.features = 200
        var far = ReportImage(name: "far1.jpg", status: "unregistered")
        far.features = 2500
        var far2 = ReportImage(name: "far2.jpg", status: "unregistered")
        far2.features = 2800
        report.images += [plain, far, far2]
        let advice = CaptureAdvice.advise(report, largestGapDeg: nil, meanElevationDeg: nil)
        XCTAssertEqual(advice.count, 3, "\(advice)")
        XCTAssertTrue(advice[0].hasPrefix("Blur: frame b.jpg was"), advice[0])
        XCTAssertTrue(advice[1].hasPrefix("Low alignment (67%)") && advice[1].contains("wall.jpg")
                      && advice[1].contains("texture"), advice[1])
        XCTAssertTrue(advice[2].hasPrefix("Overlap:") && advice[2].contains("far1.jpg and far2.jpg"), advice[2])
    }

    func testFrameListsStayShort() {
        XCTAssertEqual(CaptureAdvice.frames(["a"]), "frame a")
        XCTAssertEqual(CaptureAdvice.frames(["a", "b", "c"]), "frames a, b and c")
        XCTAssertEqual(CaptureAdvice.frames((0..<9).map(String.init)), "frames 0, 1, 2, 3, 4, 5 and 3 more")
    }
}

/// Output files are replaced whole: a rerun into the same folder keeps one complete file.
final class AtomicWriteTests: XCTestCase {
    func testRewriteReplacesTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.json")
        try writeAtomically(Data("first".utf8), to: file)
        try writeAtomically(Data("second".utf8), to: file)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["report.json"], "no temporary left")
        XCTAssertThrowsError(try writeAtomically(Data(), to: folder.appendingPathComponent("missing/report.json")))
    }
}
