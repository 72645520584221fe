import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// The video a capture came from: per source file its frames, keyframes and blurred frames,
    /// then each keyframe with its frame, time and why it was chosen. Empty for photos.
    static func videoSection(_ report: Report) -> String {
        guard let video = report.video else { return "" }
        let sources = video.sources.map { source in
            "<tr><td>\(escape(source.file))</td><td>\(escape(source.codec))</td>"
                + "<td class=\"num\">\(source.width)×\(source.height)</td><td class=\"num\">\(source.rotationDeg)°</td>"
                + "<td class=\"num\">\(ReportFormat.fixed(source.fps, 2))</td><td class=\"num\">\(source.framesDecoded)</td>"
                + "<td class=\"num\">\(source.keyframes)</td><td class=\"num\">\(source.blurredFrames.count)</td></tr>"
        }.joined(separator: "\n")
        let keyframes = video.keyframes.map { keyframe in
            "<tr><td>\(escape(keyframe.image))</td><td class=\"num\">\(keyframe.frame)</td>"
                + "<td class=\"num\">\(ReportFormat.fixed(keyframe.timeSeconds, 2)) s</td><td>\(escape(keyframe.reason))</td></tr>"
        }.joined(separator: "\n")
        return """
            <section class="video"><h2>Video</h2>
            <table>
            <tr><th>file</th><th>codec</th><th>size</th><th>rotation</th><th>fps</th><th>frames</th><th>keyframes</th><th>blurred</th></tr>
            \(sources)
            </table>
            <details><summary>\(video.keyframes.count) keyframes (target \(video.targetKeyframes); blurred: below \
            \(ReportFormat.fixed(video.blurRatio, 2)) of the local median sharpness, never chosen)</summary>
            <table>
            <tr><th>image</th><th>frame</th><th>time</th><th>why</th></tr>
            \(keyframes)
            </table>
            </details>
            </section>
            """
    }
}
