import Foundation
import PhotogrammetryCore

/// A room scan as room-scanning SDKs export it (CubiCasa's layout): one video (`video.mp4`) with
/// `arkitData.json` beside it (``ARKitFrames``), optionally `config.json` and the depth frames
/// `allDepthFrames.bin` (``DepthFrames``). The video's keyframes become the capture's images;
/// each is matched to a frame of the JSON, whose pose and intrinsics become its pose prior (as a
/// `transforms.json`'s do) and whose depth frame its depth image (as a `depth/` PNG does).
public struct ARKitScan: Sendable {
    /// The sidecar files' names, as the SDK writes them.
    public static let framesFileName = "arkitData.json"
    public static let configFileName = "config.json"
    public static let depthFileName = "allDepthFrames.bin"
    public static let confidenceFileName = "allConfidenceFrames.bin"

    public var framesFile: URL
    public var frames: ARKitFrames
    public var depth: DepthFrames?

    /// The JSON frame each keyframe image was matched to, by image name.
    public var frameOfImage: [String: Int]
    /// The clockwise display rotation of each matched image's video, by image name.
    var rotationOfImage: [String: Int]
    /// The coded (sensor) size of each matched image's video, by image name.
    var codedSizeOfImage: [String: (width: Int, height: Int)]
    /// How keyframes were matched: "frameNumber" or "frameTimestamp".
    public var matchedBy: String

    /// The scan a capture of one video carries in the folders it was found in (``Capture/videoFolders``),
    /// nearest the capture's root first; nil for photos, several videos or no `arkitData.json`.
    /// - Throws: ``PipelineError/invalidInput(_:)`` naming the file at fault: a malformed
    ///   `arkitData.json` or `config.json`, a depth file whose size does not fit, or frames that
    ///   match no keyframe.
    public static func discover(in capture: Capture) throws -> ARKitScan? {
        guard let video = capture.video, video.sources.count == 1 else { return nil }
        for folder in capture.videoFolders {
            let url = folder.appendingPathComponent(framesFileName)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            return try load(url, capture: capture, video: video)
        }
        return nil
    }

    /// Reads `framesFile` and the sidecars beside it and matches its frames to `video`'s keyframes.
    static func load(_ framesFile: URL, capture: Capture, video: VideoSummary) throws -> ARKitScan {
        let folder = framesFile.deletingLastPathComponent()
        let frames = try ARKitFrames.load(framesFile)
        let configured = try depthSize(inConfig: folder.appendingPathComponent(configFileName))
        var depth: DepthFrames?
        let depthURL = folder.appendingPathComponent(depthFileName)
        if FileManager.default.fileExists(atPath: depthURL.path) {
            let size = configured ?? DepthFrames.defaultSize
            let source = configured != nil ? "the size config.json's depthWidth, depthHeight give"
                : "ARKit's scene depth size: config.json gives no depthWidth, depthHeight"
            let confidenceURL = folder.appendingPathComponent(confidenceFileName)
            depth = try DepthFrames(file: depthURL, width: size.width, height: size.height, count: frames.frames.count, sizeSource: source,
                                    confidenceFile: FileManager.default.fileExists(atPath: confidenceURL.path) ? confidenceURL : nil)
        }
        let source = video.sources[0]
        let (matched, matchedBy) = try match(frames, keyframes: video.keyframes, fps: source.fps, file: framesFile)
        let names = Set(capture.images.map(\.name))
        var frameOfImage: [String: Int] = [:], rotation: [String: Int] = [:], coded: [String: (width: Int, height: Int)] = [:]
        let quarterTurns = ((source.rotationDeg / 90) % 4 + 4) % 4
        let codedSize = quarterTurns % 2 == 0 ? (source.width, source.height) : (source.height, source.width)
        for (image, frame) in matched where names.contains(image) {
            frameOfImage[image] = frame
            rotation[image] = source.rotationDeg
            coded[image] = codedSize
        }
        guard !frameOfImage.isEmpty else {
            throw PipelineError.invalidInput("\(framesFile.path): none of its \(frames.frames.count) frames is at a keyframe of "
                                             + "\(source.file) (matched by \(matchedBy)); --priors none ignores it")
        }
        return ARKitScan(framesFile: framesFile, frames: frames, depth: depth, frameOfImage: frameOfImage, rotationOfImage: rotation,
                         codedSizeOfImage: coded, matchedBy: matchedBy)
    }

    /// What is read of `config.json`: the depth frames' size. Missing file: nothing.
    static func depthSize(inConfig url: URL) throws -> (width: Int, height: Int)? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = try? Data(contentsOf: url), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw PipelineError.invalidInput("\(url.path): not a JSON object")
        }
        func size(_ key: String) throws -> Int? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let n = (value as? NSNumber)?.doubleValue, n.isFinite, n >= 1, n <= 100_000, n == n.rounded() else {
                throw PipelineError.invalidInput("\(url.path): \(key) is not a positive whole number of pixels")
            }
            return Int(n)
        }
        let width = try size("depthWidth"), height = try size("depthHeight")
        guard (width == nil) == (height == nil) else {
            throw PipelineError.invalidInput("\(url.path): gives one of depthWidth and depthHeight without the other")
        }
        return width.map { ($0, height!) }
    }

    /// Each keyframe's JSON frame, by image name: the nearest by `frameNumber` when every frame
    /// has one, else by `frameTimestamp` (the first frame's at the video's start), within half
    /// the file's median spacing of frames (so the file may hold every frame or every few).
    static func match(_ file: ARKitFrames, keyframes: [VideoSummary.Keyframe], fps: Double, file url: URL) throws
        -> ([String: Int], String) {
        let frames = file.frames
        let by: String, positions: [Double], keyframePositions: [Double], floor: Double
        if frames.allSatisfy({ $0.frameNumber != nil }) {
            by = "frameNumber"
            positions = frames.map { Double($0.frameNumber!) }
            keyframePositions = keyframes.map { Double($0.frame) }
            floor = 0
        } else if frames.allSatisfy({ $0.timestamp != nil }) {
            by = "frameTimestamp"
            let start = frames.map { $0.timestamp! }.min()!
            positions = frames.map { $0.timestamp! - start }
            keyframePositions = keyframes.map(\.timeSeconds)
            floor = fps > 0 ? 0.5 / fps : 0
        } else {
            let index = frames.firstIndex { $0.frameNumber == nil && $0.timestamp == nil } ?? 0
            throw PipelineError.invalidInput("\(url.path): frame \(index) has neither frameNumber nor frameTimestamp, and without them "
                                             + "no frame can be matched to the video's keyframes")
        }
        let sorted = positions.sorted()
        let gaps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.filter { $0 > 0 }
        let tolerance = max(floor, (gaps.median() ?? 0) / 2)
        var matched: [String: Int] = [:]
        for (keyframe, position) in zip(keyframes, keyframePositions) {
            guard let nearest = positions.indices.min(by: { abs(positions[$0] - position) < abs(positions[$1] - position) }),
                  abs(positions[nearest] - position) <= tolerance + 1e-9 else { continue }
            matched[keyframe.image] = nearest
        }
        return (matched, by)
    }
}
