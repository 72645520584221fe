import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Videos as a capture: each one decoded and measured, its keyframes chosen
/// (``KeyframeSelection``) and written as JPEG into `work/video/`, which is then read like a
/// folder of photos.
///
/// The keyframes are kept with a manifest (`work/video/keyframes.json`) keyed by the videos'
/// contents and the selection options: a rerun of the same command reads them instead of decoding
/// again, and the same bytes give the same images, so the stages after ingest resume.
package enum VideoFrames {
    /// File name extensions read as videos (lower case).
    package static let extensions: Set<String> = ["mp4", "mov", "m4v"]
    /// JPEG quality of the written keyframes: 95 keeps SIFT's features as the decoded frame has them.
    package static let jpegQuality = 95

    /// The keyframes of an earlier run and the key they were made under.
    struct Manifest: Codable {
        package var key: String
        package var summary: VideoSummary
    }

    /// Decodes `videos` (names as the capture gives them) and writes their keyframes into `folder`.
    /// - Parameter progress: (done, total) frames; return false to cancel.
    /// - Throws: ``PipelineError/invalidInput(_:)`` naming a video that cannot be decoded.
    package static func extract(_ videos: [(name: String, url: URL)], into folder: URL, options: KeyframeSelection.Options,
                        progress: ((Int, Int) -> Bool)?) throws -> VideoSummary {
        let fm = FileManager.default
        let manifestURL = folder.appendingPathComponent("keyframes.json")
        let key = manifestKey(videos, options)
        if let data = try? Data(contentsOf: manifestURL), let manifest = try? JSONDecoder().decode(Manifest.self, from: data),
           manifest.key == key,
           manifest.summary.keyframes.allSatisfy({ fm.fileExists(atPath: folder.appendingPathComponent($0.image).path) }) {
            return manifest.summary
        }
        try? fm.removeItem(at: folder)
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        let infos = try videos.map { video in try decoding(video.name) { try VideoFile.probe(video.url) } }
        let total = infos.reduce(0) { $0 + $1.frameCountEstimate }
        var done = 0
        var summary = VideoSummary(sources: [], keyframes: [], targetKeyframes: options.target, blurRatio: options.blurRatio)
        for ((name, url), (info, prefix)) in zip(videos, zip(infos, prefixes(videos.map(\.name)))) {
            let measures = try decoding(name) {
                try VideoFile.measure(url) { frames in progress?(done + frames, max(total, done + frames)) ?? true }
            }
            done += measures.count
            let selection = KeyframeSelection.select(measures, fps: info.fps, options: options)
            if !prefix.isEmpty { try fm.createDirectory(at: folder.appendingPathComponent(prefix), withIntermediateDirectories: true) }
            let names = selection.keyframes.map { prefix + String(format: "frame-%06d.jpg", $0.frame) }
            try decoding(name) {
                try VideoFile.writeFrames(url, frames: selection.keyframes.map(\.frame),
                                          to: names.map { folder.appendingPathComponent($0) }, quality: jpegQuality)
            }
            let duration = measures.last!.time + (info.fps > 0 ? 1 / info.fps : 0)
            // The core decodes until a frame fails, so a file cut short gives fewer frames than its
            // container declares; the run goes on with them, and says so.
            let warning = VideoSummary.Source.truncationWarning(file: name, decoded: measures.count,
                                                                declared: info.frameCountEstimate)
            summary.sources.append(VideoSummary.Source(
                file: name, codec: info.codec, width: info.width, height: info.height, fps: info.fps,
                rotationDeg: info.rotationDegrees, durationSeconds: duration, framesDecoded: measures.count,
                framesDeclared: info.frameCountEstimate, truncated: warning != nil, warning: warning,
                motionStep: selection.step, totalMotion: selection.totalMotion, keyframes: selection.keyframes.count,
                blurredFrames: selection.blurredFrames))
            for (keyframe, image) in zip(selection.keyframes, names) {
                summary.keyframes.append(VideoSummary.Keyframe(
                    image: image, source: name, frame: keyframe.frame, timeSeconds: measures[keyframe.frame].time,
                    sharpness: measures[keyframe.frame].sharpness, reason: keyframe.reason))
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try writeAtomically(try encoder.encode(Manifest(key: key, summary: summary)), to: manifestURL)
        return summary
    }

    /// The videos' names and contents and the selection options, hashed.
    static func manifestKey(_ videos: [(name: String, url: URL)], _ options: KeyframeSelection.Options) -> String {
        var hash = StableHash()
        hash.add("video-keyframes-1 jpeg=\(jpegQuality)")
        hash.add(options.keyText)
        for video in videos {
            hash.add(video.name)
            hash.add(ContentDigest.file(video.url))
        }
        return hash.hex
    }

    /// The folder each video's keyframes go into: none for a single video (`frame-000123.jpg`),
    /// else the video's name without its extension (`clip/frame-000123.jpg`), numbered where
    /// two would coincide; a name the loader reads as a folder of its own (`images`, `masks`,
    /// `depth`, ...) gets `-video`, so that its frames are read as the others are.
    static func prefixes(_ names: [String]) -> [String] {
        guard names.count > 1 else { return [""] }
        let reserved = CaptureArchive.sidecarFolders.union(["images", "gt_sparse", "__macosx"])
        var used: Set<String> = []
        return names.map { name in
            let stem = (((name as NSString).lastPathComponent) as NSString).deletingPathExtension
            let base = stem.isEmpty ? "video" : reserved.contains(stem.lowercased()) ? stem + "-video" : stem
            var candidate = base
            var n = 2
            while used.contains(candidate.lowercased()) {
                candidate = "\(base)-\(n)"
                n += 1
            }
            used.insert(candidate.lowercased())
            return candidate + "/"
        }
    }

    /// Runs `body`; the core's error becomes one line naming the video as the capture has it.
    private static func decoding<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CVisionError {
            let file = (name as NSString).lastPathComponent
            let reason = error.message.hasPrefix(file + ": ") ? String(error.message.dropFirst(file.count + 2)) : error.message
            throw PipelineError.invalidInput("\(name): \(reason)")
        }
    }
}
