import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Working folders and OUTPUT, run against the built executable: nothing is written or removed
/// through a link another user planted under a name the tool would use, `texture` leaves no
/// working folder behind, a run never reads its own output as input, and a failed run leaves no
/// report that vouches for a half-replaced model.
final class WorkspaceSafetyTests: XCTestCase {
    typealias Outcome = BuiltProgram.Outcome

    /// The uid that plants links and folders: `nobody`, as another user of a shared folder.
    static let otherUser: uid_t = 65534

    private func run(_ arguments: [String], timeout: TimeInterval = 300,
                     file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        try BuiltProgram.start(arguments, logs: try makeBridgeTestDirectory(self)).wait(timeout: timeout, file: file, line: line)
    }

    /// A folder like `/tmp`: anyone may create entries, only their owner may remove them.
    private func sharedFolder() throws -> URL {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o1777)
        return folder
    }

    /// A folder of the victim's with one file in `input/`, and a listing to compare later.
    private func victim() throws -> (URL, [String]) {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("input"), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: folder.appendingPathComponent("input/keep.txt"))
        return (folder, try listing(folder))
    }

    private func listing(_ folder: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
    }

    /// Plants a symbolic link `at` to `target`, owned by the other user when this is root.
    private func plantLink(at link: URL, to target: URL) throws {
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        if geteuid() == 0 { XCTAssertEqual(lchown(link.path, Self.otherUser, Self.otherUser), 0) }
    }

    /// A textured plane's capture (four posed photos and their transforms.json), zipped, and the
    /// plane as an OBJ: what `texture` needs for a real run.
    private func planeCapture() throws -> (mesh: URL, zip: URL) {
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("plane")
        let images = folder.appendingPathComponent("capture/images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let views = [TextureAtlasTests.view(at: SIMD3(0, 0, -3), lookingAt: .zero),
                     TextureAtlasTests.view(at: SIMD3(1.2, 0.3, -2.8), lookingAt: .zero),
                     TextureAtlasTests.view(at: SIMD3(-1.1, -0.4, -2.9), lookingAt: .zero)]
        var posed = Reconstruction()
        posed.addCamera(Camera(id: CameraID(1), model: .pinhole, width: 240, height: 180, params: [200, 200, 120, 90]))
        var files: [(String, URL)] = []
        for (k, view) in views.enumerated() {
            let url = images.appendingPathComponent("view\(k).png")
            try TestPNG.writeRGB(TextureAtlasTests.render(view, occluder: false), width: view.width, height: view.height, to: url)
            posed.addImage(Image(id: ImageID(k + 1), name: "view\(k).png", cameraID: CameraID(1),
                                 camFromWorld: view.camFromWorld, points2D: []))
            files.append(("capture/images/view\(k).png", url))
        }
        let transforms = folder.appendingPathComponent("capture/transforms.json")
        try NerfstudioTransforms(posed, filePath: { "images/" + $0 }).jsonData().write(to: transforms)
        files.append(("capture/transforms.json", transforms))
        let zip = folder.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: files)
        let (plane, _) = try TextureAtlasTests.planeMesh(occluder: false)
        let mesh = folder.appendingPathComponent("plane.obj")
        try ModelExporter.write(MeshModel(positions: plane.points, normals: Array(repeating: SIMD3(0, 0, -1), count: plane.points.count),
                                          colors: Array(repeating: SIMD3(128, 128, 128), count: plane.points.count),
                                          triangles: plane.triangles), to: mesh)
        return (mesh, zip)
    }

    // MARK: texture

    /// A `work` link planted beside a single-file OUTPUT is not the workspace: the run writes
    /// and removes nothing through it, textures the plane, and leaves no working folder.
    func testTextureNeverUsesALinkPlantedBesideItsOutput() throws {
        let (mesh, zip) = try planeCapture()
        let shared = try sharedFolder()
        let (target, before) = try victim()
        try plantLink(at: shared.appendingPathComponent("work"), to: target)
        let output = shared.appendingPathComponent("plane.glb")
        let outcome = try run(["texture", mesh.path, zip.path, output.path, "--detail", "preview"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(try listing(target), before, "nothing written or removed through the planted link")
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("input/keep.txt"), encoding: .utf8), "precious")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: shared.path).sorted(), ["plane.glb", "work"],
                       "the working folder (plane/) is gone after success")
    }

    /// The folder a single-file OUTPUT's working files go to, planted as a link or as another
    /// user's folder, is refused in one line before anything is written.
    func testTextureRefusesAPlantedWorkingFolder() throws {
        let (mesh, zip) = try planeCapture()
        let shared = try sharedFolder()
        let (target, before) = try victim()
        let output = shared.appendingPathComponent("plane.glb")
        try plantLink(at: shared.appendingPathComponent("plane.glb.work"), to: target)
        let linked = try run(["texture", mesh.path, zip.path, output.path, "--detail", "preview"])
        XCTAssertEqual(linked.status, 1)
        XCTAssertEqual(linked.errorLines, ["photogrammetry: error: cannot write OUTPUT \(output.path): "
                                           + "\(shared.path)/plane.glb.work is a symbolic link, which is not followed "
                                           + "(remove it, or choose another OUTPUT)"])
        XCTAssertEqual(try listing(target), before)

        try XCTSkipUnless(geteuid() == 0, "planting a folder as another user needs root")
        try FileManager.default.removeItem(at: shared.appendingPathComponent("plane.glb.work"))
        let theirs = shared.appendingPathComponent("plane.glb.work")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: false)
        try plantLink(at: theirs.appendingPathComponent("work"), to: target)
        XCTAssertEqual(chown(theirs.path, Self.otherUser, Self.otherUser), 0)
        let owned = try run(["texture", mesh.path, zip.path, output.path, "--detail", "preview"])
        XCTAssertEqual(owned.status, 1)
        XCTAssertEqual(owned.errorLines.count, 1, owned.standardError)
        XCTAssertTrue(owned.standardError.contains("\(theirs.path) belongs to another user (uid \(Self.otherUser))"),
                      owned.standardError)
        XCTAssertEqual(try listing(target), before)
    }

    /// A reconstruction's folders beside or inside `texture`'s OUTPUT (`plane/` for `plane.glb`,
    /// `work/` inside a folder OUTPUT) are not its working folder: their checkpoints and unpacked
    /// zip outlive the texturing run, which leaves nothing of its own but the model files.
    func testTextureLeavesAReconstructionsWorkingFilesAlone() throws {
        let (mesh, zip) = try planeCapture()
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("runs")
        let checkpoint = "work/checkpoints/sparse.json", unpacked = "work/input/view0.png"
        for reconstruction in ["plane", "room"] {
            for file in [checkpoint, unpacked] {
                let url = folder.appendingPathComponent(reconstruction).appendingPathComponent(file)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("a reconstruction's".utf8).write(to: url)
            }
        }
        let before = try listing(folder)
        let single = try run(["texture", mesh.path, zip.path, folder.appendingPathComponent("plane.glb").path, "--detail", "preview"])
        XCTAssertEqual(single.status, 0, single.standardError)
        XCTAssertEqual(try listing(folder), (before + ["plane.glb"]).sorted(), "plane/ as it was; no working folder left")

        let room = folder.appendingPathComponent("room")
        let into = try run(["texture", mesh.path, zip.path, room.path, "--detail", "preview"])
        XCTAssertEqual(into.status, 0, into.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: room.appendingPathComponent(checkpoint).path), "work/ kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: room.appendingPathComponent(unpacked).path))
        let texturePages = ["png", "jpg"]
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: room.path)
                        .filter { !texturePages.contains(($0 as NSString).pathExtension) }.sorted(),
                       ["model.glb", "model.mtl", "model.obj", "model.usdz", "work"],
                       "the model files beside the reconstruction's work/, no working folder of texture's left")
    }

    /// Two `texture` runs to one OUTPUT never share a working folder: while one works in it (its
    /// lock held), the other is refused in one line and touches nothing.
    func testASecondTextureRunToTheSameOutputIsRefused() throws {
        let (mesh, zip) = try planeCapture()
        let folder = try makeBridgeTestDirectory(self).appendingPathComponent("runs")
        let output = folder.appendingPathComponent("plane.glb")
        let work = folder.appendingPathComponent("plane.glb.work")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("texture"), withIntermediateDirectories: true)
        let held = try XCTUnwrap(try FolderLock(folder: work))
        let before = try listing(folder)
        let second = try run(["texture", mesh.path, zip.path, output.path, "--detail", "preview"])
        XCTAssertEqual(second.status, 1)
        XCTAssertEqual(second.errorLines, ["photogrammetry: error: cannot write OUTPUT \(output.path): another texture run "
                                           + "to it is working in \(work.path) (wait for it to end, or choose another OUTPUT)"])
        XCTAssertEqual(try listing(folder), before, "the first run's working files untouched")
        withExtendedLifetime(held) {}
    }

    /// A failed `texture` (no priors) removes its unpacked zip and working folder too.
    func testTextureLeavesNoWorkingFolderAfterAFailure() throws {
        let folder = try makeBridgeTestDirectory(self)
        let images = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(3, to: images)
        let zip = folder.appendingPathComponent("photos.zip")
        try BadInputs.writeZip(zip, files: try FileManager.default.contentsOfDirectory(atPath: images.path).map {
            ($0, images.appendingPathComponent($0))
        })
        let mesh = folder.appendingPathComponent("mesh.obj")
        try "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n".write(to: mesh, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("out/room.usdz")
        let outcome = try run(["texture", mesh.path, zip.path, output.path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.standardError.contains("no transforms.json"), outcome.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path), [],
                       "neither room/ nor its unpacked input is left")
    }

    // MARK: reconstruct: OUTPUT and INPUT apart

    func testAnOutputThatIsOrHoldsTheInputIsRefused() throws {
        let capture = try makeBridgeTestDirectory(self).appendingPathComponent("capture")
        let images = capture.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(3, to: images)
        let before = try listing(capture)
        let same = try run(["reconstruct", capture.path, capture.path + "/", "--sparse-only"])
        XCTAssertEqual(same.status, 1)
        XCTAssertEqual(same.errorLines.count, 1, same.standardError)
        XCTAssertTrue(same.standardError.contains("OUTPUT \(capture.path) is INPUT"), same.standardError)
        let holding = try run(["reconstruct", images.path, capture.path, "--sparse-only"])
        XCTAssertEqual(holding.status, 1)
        XCTAssertTrue(holding.standardError.contains("OUTPUT \(capture.path) holds INPUT \(images.path)"), holding.standardError)
        XCTAssertEqual(try listing(capture), before, "nothing written into the capture")
    }

    /// OUTPUT inside INPUT: the rerun does not ingest the first run's views or take its
    /// transforms.json as priors, and makes the first run's model again.
    ///
    /// Again to the last digits, not to the byte: two fresh runs of these five images, wherever
    /// their OUTPUT, sometimes part at the mapper's last global bundle adjustment, 1e-14 apart
    /// in its cost (README, Resume). Read as a run that took its own output, the model would
    /// differ in its images, its camera and its frame.
    func testAnOutputInsideTheInputIsLeftOutOfTheRerun() throws {
        let capture = try makeBridgeTestDirectory(self).appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: capture, withIntermediateDirectories: true)
        try BadInputs.copyGoodImages(5, to: capture)
        let output = capture.appendingPathComponent("out")
        let arguments = ["reconstruct", capture.path, output.path, "--detail", "preview", "--no-mesh", "--progress", "none"]
        let first = try run(arguments)
        XCTAssertEqual(first.status, 0, first.standardError)
        let firstModel = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("work/dense/images").path).isEmpty,
                       "the first run left views inside INPUT")
        // A fresh run into the same OUTPUT, so nothing is resumed.
        try FileManager.default.removeItem(at: output.appendingPathComponent("work/checkpoints"))
        let second = try run(arguments)
        XCTAssertEqual(second.status, 0, second.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json")))
            as? [String: Any])
        XCTAssertEqual(report["images_total"] as? Int, 5, "the first run's views are not images of the capture")
        XCTAssertEqual(report["scale_source"] as? String, "none", "its transforms.json is not taken as priors")
        let secondModel = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        XCTAssertEqual(Set(secondModel.images.values.map(\.name)), Set(firstModel.images.values.map(\.name)))
        XCTAssertEqual(Double(secondModel.points3D.count), Double(firstModel.points3D.count),
                       accuracy: 0.01 * Double(firstModel.points3D.count))
        let firstParams = firstModel.cameras.values.flatMap(\.params), secondParams = secondModel.cameras.values.flatMap(\.params)
        XCTAssertEqual(firstParams.count, secondParams.count)
        for (a, b) in zip(firstParams, secondParams) { XCTAssertEqual(a, b, accuracy: 1e-6 * max(1, abs(a))) }
        let firstPoses = Dictionary(uniqueKeysWithValues: firstModel.images.values.map { ($0.name, $0.camFromWorld) })
        for image in secondModel.images.values {
            let a = try XCTUnwrap(firstPoses[image.name] ?? nil), b = try XCTUnwrap(image.camFromWorld)
            let d = a.translation - b.translation
            XCTAssertLessThan((d * d).sum().squareRoot(), 1e-6, image.name)
            for (x, y) in zip(a.rotation.rowMajor, b.rotation.rowMajor) { XCTAssertEqual(x, y, accuracy: 1e-7, image.name) }
        }
    }
}
