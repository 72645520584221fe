import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// `texture`'s core: a mesh from elsewhere textured from a capture's photos at the poses of a
/// transforms.json in the mesh's frame.
final class MeshTexturingTests: XCTestCase {
    func testPlaneSeenByFourPosedPhotosComesBackAtItsColours() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mesh-texturing-\(UUID().uuidString)")
        let images = folder.appendingPathComponent("capture/images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }

        // Four photos of TextureAtlasTests' plane, and their poses as an ARKit app would export them.
        let (views, posed) = try TextureAtlasTests.writePlanePhotos(into: images)
        try NerfstudioTransforms(posed, filePath: { "images/" + $0 }).jsonData()
            .write(to: folder.appendingPathComponent("capture/transforms.json"))

        let capture = try CaptureLoader.load(input: folder.appendingPathComponent("capture"), workspace: folder.appendingPathComponent("work"))
        let priorsURL = try XCTUnwrap(PosePriors.discover(in: capture), "transforms.json beside the images is found")
        let priors = try PosePriors.load(priorsURL, images: capture.images)
        let (plane, _) = try TextureAtlasTests.planeMesh(occluder: false)
        let grey = [SIMD3<UInt8>](repeating: SIMD3(128, 128, 128), count: plane.points.count)
        let mesh = MeshModel(positions: plane.points, normals: Array(repeating: SIMD3(0, 0, -1), count: plane.points.count),
                             colors: grey, triangles: plane.triangles)
        let result = try MeshTexturing.run(mesh: mesh, capture: capture, priors: priors, masks: nil,
                                           workspace: folder.appendingPathComponent("work/texture"), detail: .preview, threads: 2)
        XCTAssertEqual(result.views, 4)
        XCTAssertEqual(result.pageSize, 1024)
        XCTAssertEqual(result.untexturedFaces, 0)

        // Rendered from the first photo's camera, the textured plane is the photo again.
        let view = views[0]
        let (psnr, samples) = try TextureAtlasTests.psnrAgainstPhoto(result.model, from: view)
        XCTAssertGreaterThan(samples, 3 * view.width * view.height / 4, "the plane fills most of the view")
        // Photo to atlas to render resamples waves a few pixels long twice: about 29 dB. Colours
        // from the wrong place (waves of amplitude 90 out of step) would give about 9 dB.
        XCTAssertGreaterThan(psnr, 25, "render against photo: \(psnr) dB")
    }

    func testNoFrameForAnyImageIsOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mesh-texturing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("a.png")
        try TestPNG.writeGrey([UInt8](repeating: 100, count: 64 * 48), width: 64, height: 48, to: image)
        let capture = try CaptureLoader.load(input: folder, workspace: folder.appendingPathComponent("work"))
        let priors = PosePriors(file: folder.appendingPathComponent("transforms.json"), byName: [:], unmatchedFrames: 3, digest: "")
        let mesh = MeshModel(positions: [.zero, SIMD3(1, 0, 0), SIMD3(0, 1, 0)], normals: Array(repeating: SIMD3(0, 0, 1), count: 3),
                             colors: [.zero, .zero, .zero],
                             triangles: [SIMD3(0, 1, 2)])
        XCTAssertThrowsError(try MeshTexturing.run(mesh: mesh, capture: capture, priors: priors, masks: nil,
                                                   workspace: folder, detail: .preview, threads: 1)) { error in
            XCTAssertTrue("\(error)".contains("transforms.json"), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"))
        }
    }
}

/// `photogrammetry texture` as a user runs it: a capture without poses is one line, nothing written.
final class TextureCommandTests: XCTestCase {
    func testCaptureWithoutPriorsIsOneLineAndWritesNothing() throws {
        let folder = try makeBridgeTestDirectory(self)
        let images = folder.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try TestPNG.writeGrey([UInt8](repeating: 100, count: 64 * 48), width: 64, height: 48, to: images.appendingPathComponent("a.png"))
        let mesh = folder.appendingPathComponent("mesh.obj")
        try "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".write(to: mesh, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out")
        let outcome = try BuiltProgram.start(["texture", mesh.path, images.path, output.path], logs: folder).wait(timeout: 120)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
        XCTAssertTrue(outcome.standardError.contains("transforms.json"), outcome.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("model.glb").path))
    }

    func testUnknownPosesSourceIsOneLine() throws {
        let folder = try makeBridgeTestDirectory(self)
        let outcome = try BuiltProgram.start(["texture", "mesh.obj", "capture", folder.appendingPathComponent("out").path,
                                              "--poses", "arkit"], logs: folder).wait(timeout: 120)
        XCTAssertEqual(outcome.status, 2, outcome.standardError)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
        XCTAssertTrue(outcome.standardError.contains("--poses must be priors or sfm"), outcome.standardError)
    }
}
