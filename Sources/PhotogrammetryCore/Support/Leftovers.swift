import Foundation

/// Temporary files and folders a killed run left in its OUTPUT folder, removed by the next run.
///
/// Every file of a run is written under a temporary name and renamed into place (checkpoints,
/// reports, feature and depth files, views, the cloud, the sparse folders); a SIGKILL between
/// the two leaves the temporary behind. Those names end in `.tmp` (`.tmp.png` for views), so
/// they are told apart from everything else; the unpacked input (`work/input`) holds the
/// user's files and is never looked at.
public enum Leftovers {
    /// Whether `name` is one of the run's temporary names.
    public static func isTemporary(_ name: String) -> Bool {
        name.hasSuffix(".tmp") || name.hasSuffix(".tmp.png")
    }

    /// Removes the temporaries in OUTPUT (its top level) and under `work/`; returns their paths.
    @discardableResult
    public static func remove(in layout: OutputLayout) -> [String] {
        var removed: [String] = []
        let fm = FileManager.default
        let input = OutputLayout.unpackedInput(in: layout.work).standardizedFileURL.path
        func sweep(_ folder: URL, recursive: Bool) {
            guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else { return }
            for name in names {
                let url = folder.appendingPathComponent(name)
                if isTemporary(name) {
                    if (try? fm.removeItem(at: url)) != nil { removed.append(url.path) }
                } else if recursive, url.standardizedFileURL.path != input, OutputFolder.isDirectory(url.path),
                          (try? fm.destinationOfSymbolicLink(atPath: url.path)) == nil {
                    sweep(url, recursive: true)
                }
            }
        }
        sweep(layout.root, recursive: false)
        sweep(layout.work, recursive: true)
        return removed.sorted()
    }
}
