import Foundation
import PhotogrammetryCore
import PhotogrammetrySparse

extension ReportHTML {
    /// The 3D view: a canvas the viewer script draws the model, cameras and points on, with
    /// toggles, a reset button and the picked camera's photo beside "Look through this camera".
    ///
    /// Everything is inline (three.js, the scene as JSON), so the page works from `file://`.
    /// Until the script starts, only a note shows and the renders stay; without WebGL the note
    /// says so. Without the scripts (`library` failed) the section is one line saying why.
    static func viewerSection(_ viewer: ViewerScene, library loading: Result<ViewerLibrary, ViewerLibrary.Missing>) -> String {
        let library: ViewerLibrary
        switch loading {
        case .success(let loaded): library = loaded
        case .failure(let missing):
            return "<section class=\"viewer\"><h2>3D view</h2><p class=\"note\">\(escape(missing.reason)).</p></section>"
        }
        guard let json = try? viewer.pageJSON() else { return "" }
        func toggle(_ name: String, _ label: String, on: Bool) -> String {
            "<label><input type=\"checkbox\" id=\"viewer-show-\(name)\"\(on ? " checked" : "")> \(escape(label))</label>"
        }
        let hasMesh = viewer.mesh != nil
        var toggles = [toggle("model", "model", on: true), toggle("cameras", "cameras (\(viewer.cameras.count))", on: true),
                       toggle("sparse", "sparse points (\(ReportFormat.count(viewer.sparsePoints.positions.count)))", on: !hasMesh)]
        if let dense = viewer.densePoints {
            let shown = dense.positions.count == dense.sourceCount ? ReportFormat.count(dense.sourceCount)
                : "\(ReportFormat.count(dense.positions.count)) of \(ReportFormat.count(dense.sourceCount))"
            toggles.append(toggle("dense", "dense cloud (\(shown))", on: false))
        }
        let reduction = viewer.mesh?.reduction.map { " The model here: \(escape($0))." } ?? ""
        let scripts = library.scripts.map { "<script>\($0)</script>" }.joined(separator: "\n")
        return """
            <section class="viewer" id="viewer"><h2>3D view</h2>
            <p class="note" id="viewer-note">The 3D view needs JavaScript and WebGL; the renders below show the model.</p>
            <div class="viewer-box" data-viewer-hidden hidden><canvas id="viewer-canvas"></canvas>
            <div class="viewer-tip" id="viewer-tip" hidden><img alt=""><span></span></div></div>
            <div class="viewer-controls" data-viewer-hidden hidden>\(toggles.joined(separator: " "))
            <button type="button" id="viewer-reset">Reset view</button></div>
            <div class="viewer-camera" id="viewer-camera" hidden><img id="viewer-photo" alt="">
            <div><strong id="viewer-camera-name"></strong><br><button type="button" id="viewer-look">Look through this camera</button></div></div>
            <p class="aside" data-viewer-hidden hidden>Drag to orbit, right-drag to pan, scroll to zoom; point at a camera \
            for its photo, click it to look through it.\(reduction) Unlit: every surface shows its own colour.</p>
            <output id="viewer-state" hidden></output>
            <script type="application/json" id="viewer-data">\(json)</script>
            \(scripts)
            <script>\(viewerScript)</script>
            </section>
            """
    }
}
