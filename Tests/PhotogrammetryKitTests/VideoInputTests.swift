import Foundation
import XCTest
@testable import PhotogrammetryCore
@testable import PhotogrammetryBridge
@testable import PhotogrammetryIO
@testable import PhotogrammetrySparse
@testable import PhotogrammetryDense
@testable import PhotogrammetryKit
import PhotogrammetryTestSupport

/// Video input: decoding through the core (H.264, HEVC, rotation metadata), keyframe choice by
/// motion and sharpness, and a video of templeRing-12 reconstructed like its photos.
final class VideoInputTests: XCTestCase {
    static let videos = Repository.datasets.appendingPathComponent("video")
    /// `Datasets/video/templeRing-12.mp4`: templeRing-12's 12 photos held 3 frames each, frame 10
    /// and frames 21-23 (all of photo 7) blurred (`scripts/data/make-video-samples.sh`).
    static let templeVideo = videos.appendingPathComponent("templeRing-12.mp4")
    static let blurredFrames = [10, 21, 22, 23]
    static let heldFrames = 3

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pg-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func testH264ProbeAndMeasureCountEveryFrame() throws {
        let info = try VideoFile.probe(Self.templeVideo)
        XCTAssertEqual(info, VideoFile.Info(width: 640, height: 480, fps: 10, frameCountEstimate: 36, rotationDegrees: 0, codec: "avc1"))
        let measures = try VideoFile.measure(Self.templeVideo)
        XCTAssertEqual(measures.count, 36)
        XCTAssertEqual(measures[35].time, 3.5, accuracy: 0.01)
        // A held photo does not move; a blurred frame is far less sharp than its neighbours.
        XCTAssertEqual(measures[1].motion, 0, accuracy: 0.002)
        XCTAssertLessThan(measures[10].sharpness, 0.5 * measures[9].sharpness)
    }

    func testRotationMetadataTurnsFramesClockwise() throws {
        let rotated = Self.videos.appendingPathComponent("templeRing-rot90.mov")
        let info = try VideoFile.probe(rotated)
        XCTAssertEqual(info.codec, "hvc1")
        XCTAssertEqual(info.rotationDegrees, 90)
        XCTAssertEqual([info.width, info.height], [480, 640], "displayed upright: the coded 640x480 turned")
        XCTAssertEqual(try VideoFile.measure(rotated).count, 8)

        let folder = try temporaryDirectory()
        let frame = folder.appendingPathComponent("frame.jpg")
        try VideoFile.writeFrames(rotated, frames: [0], to: [frame], quality: 95)
        let upright = try PixelImage(contentsOf: frame)
        let photo = try PixelImage(contentsOf: BadInputs.goodImages.appendingPathComponent("templeR0013.png"))
        XCTAssertEqual([upright.width, upright.height], [480, 640])
        // Turned clockwise, the photo's pixel (x, y) lands at (h - 1 - y, x); counterclockwise
        // (OpenCV 4.6's own auto-rotation) it would land at (y, w - 1 - x).
        var clockwise = 0.0, counterclockwise = 0.0
        for y in stride(from: 0, to: 480, by: 7) {
            for x in stride(from: 0, to: 640, by: 7) {
                let p = Double(photo[x, y].first!)
                clockwise += abs(p - Double(upright[479 - y, x].first!))
                counterclockwise += abs(p - Double(upright[y, 639 - x].first!))
            }
        }
        XCTAssertLessThan(clockwise, 0.2 * counterclockwise, "frames are shown as a player shows them")
    }

    func testKeyframesOfTheTempleVideoLeaveOutTheBlurredFrames() throws {
        let work = try temporaryDirectory()
        let capture = try CaptureLoader.load(input: Self.templeVideo, workspace: work)
        let video = try XCTUnwrap(capture.video)
        XCTAssertEqual(video.sources.map(\.framesDecoded), [36])
        XCTAssertEqual(video.sources[0].blurredFrames, Self.blurredFrames)
        let chosen = video.keyframes.map(\.frame)
        XCTAssertTrue(Set(chosen).isDisjoint(with: Self.blurredFrames), "chosen \(chosen)")
        // One keyframe per photo, except photo 7, all of whose frames are blurred.
        XCTAssertEqual(chosen.map { $0 / Self.heldFrames }, [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11])
        XCTAssertEqual(capture.images.map(\.name), chosen.map { String(format: "frame-%06d.jpg", $0) })
        XCTAssertEqual(capture.images.map(\.width), Array(repeating: 640, count: chosen.count))
        XCTAssertTrue(video.keyframes.allSatisfy { !$0.reason.isEmpty })
        XCTAssertEqual(capture.imageRoot.standardizedFileURL, OutputLayout.videoFrames(in: work).standardizedFileURL)

        // A second load reads the keyframes the first wrote (same video, same options).
        let manifest = OutputLayout.videoFrames(in: work).appendingPathComponent("keyframes.json")
        let written = try FileManager.default.attributesOfItem(atPath: manifest.path)[.modificationDate] as? Date
        let again = try CaptureLoader.load(input: Self.templeVideo, workspace: work)
        XCTAssertEqual(again.video, video)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: manifest.path)[.modificationDate] as? Date, written)
    }

    func testAFolderOrZipHoldingVideosIsTheirKeyframes() throws {
        let work = try temporaryDirectory()
        let folder = work.appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.templeVideo, to: folder.appendingPathComponent("orbit.mp4"))
        try FileManager.default.copyItem(at: Self.videos.appendingPathComponent("templeRing-rot90.mov"),
                                         to: folder.appendingPathComponent("portrait.MOV"))
        let capture = try CaptureLoader.load(input: folder, workspace: work.appendingPathComponent("work"))
        let video = try XCTUnwrap(capture.video)
        XCTAssertEqual(video.sources.map(\.file), ["orbit.mp4", "portrait.MOV"])
        XCTAssertTrue(capture.images.contains { $0.name.hasPrefix("orbit/frame-") })
        XCTAssertTrue(capture.images.filter { $0.name.hasPrefix("portrait/") }.allSatisfy { $0.width == 480 && $0.height == 640 })

        let zip = work.appendingPathComponent("capture.zip")
        try BadInputs.writeZip(zip, files: [("clip/orbit.mp4", Self.templeVideo)])
        let zipped = try CaptureLoader.load(input: zip, workspace: work.appendingPathComponent("work-zip"))
        XCTAssertEqual(zipped.video?.sources.map(\.file), ["orbit.mp4"])
        XCTAssertEqual(zipped.images.count, 11)
    }

    func testSeveralVideosGetAFolderEach() {
        XCTAssertEqual(VideoFrames.prefixes(["a.mp4"]), [""])
        XCTAssertEqual(VideoFrames.prefixes(["x/clip.mp4", "y/clip.MOV", "masks.mp4", "images.mov"]),
                       ["clip/", "clip-2/", "masks-video/", "images-video/"])
    }

    func testAVideoBesidePhotosIsRejectedWithItsReason() throws {
        let folder = try temporaryDirectory().appendingPathComponent("capture")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try BadInputs.copyGoodImages(3, to: folder)
        try FileManager.default.copyItem(at: Self.templeVideo, to: folder.appendingPathComponent("extra.mp4"))
        let capture = try CaptureLoader.load(input: folder, workspace: folder.deletingLastPathComponent().appendingPathComponent("work"))
        XCTAssertEqual(capture.images.count, 3)
        XCTAssertNil(capture.video)
        XCTAssertEqual(capture.rejected.map(\.name), ["extra.mp4"])
    }

    func testACorruptVideoIsOneLineNamingIt() throws {
        let work = try temporaryDirectory()
        let bytes = try Data(contentsOf: Self.templeVideo)
        // Cut off before the index (the writer puts `moov` last), and plain garbage.
        let truncated = work.appendingPathComponent("cut.mp4")
        try bytes.prefix(bytes.count / 3).write(to: truncated)
        let garbage = work.appendingPathComponent("noise.mov")
        var generator = SeededGenerator(seed: 7)
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: garbage)
        for file in [truncated, garbage] {
            XCTAssertThrowsError(try CaptureLoader.load(input: file, workspace: work.appendingPathComponent("w"))) { error in
                let line = "\(error)"
                XCTAssertTrue(line.hasPrefix(file.lastPathComponent + ": "), line)
                XCTAssertFalse(line.contains("\n"))
            }
        }
        let empty = work.appendingPathComponent("empty.mp4")
        try Data().write(to: empty)
        XCTAssertThrowsError(try CaptureLoader.load(input: empty, workspace: work)) { error in
            XCTAssertEqual("\(error)", "empty.mp4: empty file (0 bytes)")
        }
    }

    /// Writes the temple video with its index (`moov`) moved before the media data, as a
    /// streaming encoder writes it, cut after `keep` bytes (0: whole): a download stopped early,
    /// which still opens and declares all 36 frames.
    static func writeStreamableCopy(to url: URL, keep: Int) throws {
        try runBridgeTestPython("""
            import struct, sys
            src, dst, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
            data = open(src, 'rb').read()
            boxes, at = [], 0
            while at < len(data):
                size, kind = struct.unpack('>I4s', data[at:at + 8])
                boxes.append((kind, data[at:at + size]))
                at += size
            moov = bytearray(dict(boxes)[b'moov'])
            def shift(start, end):
                # Every chunk offset moves by the index now written before the media data.
                at = start
                while at < end:
                    size, kind = struct.unpack('>I4s', moov[at:at + 8])
                    if kind in (b'trak', b'mdia', b'minf', b'stbl'):
                        shift(at + 8, at + size)
                    elif kind in (b'stco', b'co64'):
                        width = 4 if kind == b'stco' else 8
                        code = '>I' if kind == b'stco' else '>Q'
                        count, = struct.unpack('>I', moov[at + 12:at + 16])
                        for k in range(count):
                            o = at + 16 + width * k
                            moov[o:o + width] = struct.pack(code, struct.unpack(code, moov[o:o + width])[0] + len(moov))
                    at += size
            shift(8, len(moov))
            out = boxes[0][1] + bytes(moov) + b''.join(box for kind, box in boxes[1:] if kind != b'moov')
            open(dst, 'wb').write(out[:keep] if keep > 0 else out)
            """, arguments: [templeVideo.path, url.path, "\(keep)"])
    }

    /// A video cut short still opens: the frames decoded are used, and the report and a progress
    /// event say where decoding stopped and how many frames the file declares.
    func testATruncatedVideoSaysWhereDecodingStopped() throws {
        let work = try temporaryDirectory()
        let whole = work.appendingPathComponent("whole.mp4"), cut = work.appendingPathComponent("clip.mp4")
        try Self.writeStreamableCopy(to: whole, keep: 0)
        try Self.writeStreamableCopy(to: cut, keep: 60_000)
        let complete = try XCTUnwrap(try CaptureLoader.load(input: whole, workspace: work.appendingPathComponent("w1")).video?.sources.first)
        XCTAssertEqual([complete.framesDecoded, complete.framesDeclared], [36, 36])
        XCTAssertFalse(complete.truncated)
        XCTAssertNil(complete.warning)

        let warning = "clip.mp4: decoding stopped at frame 10 of 36 declared (truncated or corrupt file); using the 10 decoded frames"
        let source = try XCTUnwrap(try CaptureLoader.load(input: cut, workspace: work.appendingPathComponent("w2")).video?.sources.first)
        XCTAssertEqual([source.framesDecoded, source.framesDeclared], [10, 36])
        XCTAssertTrue(source.truncated)
        XCTAssertEqual(source.warning, warning)

        let output = work.appendingPathComponent("out")
        let outcome = try BuiltProgram.run(["reconstruct", cut.path, output.path, "--sparse-only", "--progress", "json"], logs: work)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.outputLines.contains { $0.contains("\"message\":\"\(warning)\"") }, outcome.standardOutput)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json"))) as? [String: Any]
        let reported = try XCTUnwrap(((json?["video"] as? [String: Any])?["sources"] as? [[String: Any]])?.first)
        XCTAssertEqual(reported["truncated"] as? Bool, true)
        XCTAssertEqual(reported["frames_declared"] as? Int, 36)
        XCTAssertEqual(reported["warning"] as? String, warning)
    }

    /// The whole pipeline on the video: its 11 keyframes register and their poses agree with
    /// templeRing-12's ground truth as the photos' do (pair AUC@5 above 80, EndToEndTests).
    func testTheTempleVideoReconstructs() throws {
        let output = try temporaryDirectory().appendingPathComponent("out")
        var options = ReconstructionOptions()
        options.sparseOnly = true
        let report = try ReconstructionPipeline(input: Self.templeVideo, output: output, options: options, progress: nil).run()
        XCTAssertEqual(report.imagesTotal, 11)
        XCTAssertEqual(report.imagesRegistered, 11)
        XCTAssertEqual(report.video?.keyframes.count, 11)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("report.json"))) as? [String: Any]
        let section = try XCTUnwrap(json?["video"] as? [String: Any])
        XCTAssertEqual((section["sources"] as? [[String: Any]])?.first?["frames_decoded"] as? Int, 36)
        let html = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("templeRing-12.mp4"))

        // Keyframe k is photo frame / 3 of the capture: named so, the poses compare with the truth.
        var model = try Reconstruction.readColmapText(from: output.appendingPathComponent("sparse"))
        let photos = try FileManager.default.contentsOfDirectory(atPath: BadInputs.goodImages.path).sorted()
        for (id, image) in model.images {
            let frame = try XCTUnwrap(Int(image.name.dropFirst("frame-".count).prefix(6)))
            model.images[id]?.name = photos[frame / Self.heldFrames]
        }
        let truth = try Reconstruction.readColmapText(from: Repository.datasets.appendingPathComponent("templeRing-12/gt_sparse"))
        let photo7 = photos[7]
        var truthWithoutPhoto7 = truth
        truthWithoutPhoto7.images = truth.images.filter { $0.value.name != photo7 }
        let comparison = PoseComparison(model: model, reference: truthWithoutPhoto7)
        XCTAssertEqual(comparison.registered, 11)
        XCTAssertGreaterThan(comparison.auc.at5, 80, "pair AUC@5 against ground truth")
    }
}
