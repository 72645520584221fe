import Foundation

/// The JavaScript report.html's 3D viewer runs on: three.js r111 and its OrbitControls, as
/// Debian's `libjs-three` installs them (non-module builds), inlined into the page.
public struct ViewerLibrary: Sendable {
    /// Where `libjs-three` puts three.js.
    public static let installedFolder = URL(fileURLWithPath: "/usr/share/javascript/three", isDirectory: true)
    /// The files inlined, relative to the folder, in load order.
    static let files = ["three.min.js", "examples/js/controls/OrbitControls.js"]

    /// The scripts' text, in load order.
    public var scripts: [String]

    /// Why the page has no viewer: one line for the report.
    public struct Missing: Error, Sendable, Equatable {
        public var reason: String
    }

    /// The scripts from `folder`, or why they cannot be used (a file missing or unreadable).
    public static func load(from folder: URL = installedFolder) -> Result<ViewerLibrary, Missing> {
        var scripts: [String] = []
        for name in files {
            let url = folder.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else {
                return .failure(Missing(reason: "no 3D viewer: \(url.path) is missing (install the Debian package libjs-three)"))
            }
            // Inside <script>, "</script" would end the element early.
            scripts.append(text.replacingOccurrences(of: "</script", with: "<\\/script", options: .caseInsensitive))
        }
        return .success(ViewerLibrary(scripts: scripts))
    }
}
