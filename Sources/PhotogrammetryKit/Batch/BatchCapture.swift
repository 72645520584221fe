import Foundation

#if canImport(Glibc)
import Glibc
import PhotogrammetryCore
import PhotogrammetrySparse
#elseif canImport(Darwin)
import Darwin
#endif

/// One capture of a batch: where it is and the name of its output folder under OUT_ROOT.
public struct BatchCapture: Sendable, Equatable {
    /// Its position in the sorted batch (what sharding divides).
    public var index: Int
    /// The output folder's name under OUT_ROOT, unique in the batch.
    public var name: String
    /// The folder, zip or video, absolute.
    public var input: URL

    /// The captures of LIST_OR_DIR, sorted, each with its name.
    ///
    /// A folder's captures are its subfolders, `.zip` files and videos (dot-entries left out); a file is
    /// a list of inputs, one per line, blank lines and lines starting with `#` skipped, relative
    /// paths taken from the list's folder. Both are sorted by path, so every process of a sharded
    /// batch sees the same order; a path listed twice counts once.
    /// - Parameter outRoot: the batch's OUT_ROOT, which is never a capture (it may sit in the folder
    ///   of captures) and may not be that folder (its output folders would be captures next time).
    /// - Throws: ``PipelineError/invalidInput(_:)`` when LIST_OR_DIR cannot be read or holds no capture.
    public static func discover(_ listOrDirectory: URL, outRoot: URL? = nil) throws -> [BatchCapture] {
        let root = listOrDirectory.standardizedFileURL
        let excluded = outRoot?.standardizedFileURL.path
        var info = stat()
        guard stat(root.path, &info) == 0 else {
            throw PipelineError.invalidInput("\(root.path): no such file or folder")
        }
        let inputs: [URL]
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard root.path != excluded else {
                throw PipelineError.invalidInput("\(root.path): OUT_ROOT is the folder of captures; its output folders "
                                                 + "would be taken for captures: name another folder")
            }
            inputs = try folderCaptures(root).filter { $0.path != excluded }
            guard !inputs.isEmpty else {
                throw PipelineError.invalidInput("\(root.path): no captures in this folder (subfolders or .zip files; "
                                                 + "for one capture, use reconstruct)")
            }
        } else {
            guard root.pathExtension.lowercased() != "zip" else {
                throw PipelineError.invalidInput("\(root.path): a zip is one capture, not a list (use reconstruct, "
                                                 + "or a folder of zips)")
            }
            inputs = try listedCaptures(root).filter { $0.path != excluded }
            guard !inputs.isEmpty else {
                throw PipelineError.invalidInput("\(root.path): the list names no capture")
            }
        }
        let sorted = Array(Set(inputs.map(\.path))).sorted().map { URL(fileURLWithPath: $0) }
        return zip(sorted.indices, names(for: sorted)).map { k, name in
            BatchCapture(index: k, name: name, input: sorted[k])
        }
    }

    /// The subfolders, zips and videos of `folder`.
    static func folderCaptures(_ folder: URL) throws -> [URL] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw PipelineError.invalidInput("\(folder.path): cannot list the folder (\(error.localizedDescription))")
        }
        return entries.filter { !$0.hasPrefix(".") }.compactMap { entry -> URL? in
            let url = folder.appendingPathComponent(entry)
            var info = stat()
            // stat, not lstat: a link to a capture elsewhere is a capture.
            guard stat(url.path, &info) == 0 else { return nil }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: return url
            case S_IFREG where url.pathExtension.lowercased() == "zip": return url
            case S_IFREG where VideoFrames.extensions.contains(url.pathExtension.lowercased()): return url
            default: return nil
            }
        }
    }

    /// The inputs a list file names.
    static func listedCaptures(_ list: URL) throws -> [URL] {
        let text: String
        do {
            text = try String(contentsOf: list, encoding: .utf8)
        } catch {
            throw PipelineError.invalidInput("\(list.path): cannot read the list (not UTF-8 text, or unreadable)")
        }
        let base = list.deletingLastPathComponent()
        return text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).compactMap { raw -> URL? in
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            let url = line.hasPrefix("/") ? URL(fileURLWithPath: line) : base.appendingPathComponent(line)
            return url.standardizedFileURL
        }
    }

    /// Output folder names for `inputs`, unique in the batch.
    ///
    /// The input's last component, with characters other than letters, digits, `.`, `_` and `-`
    /// made `_` (a name is a path component on every file system, and one line in a table), and
    /// a `.zip` ending made `-zip`, so a folder and its zip never share a folder (and `.usdz`,
    /// `.glb`, `.obj`, `.ply` alike, which would make the OUTPUT a model file, and a video's
    /// `.mp4`, `.mov`, `.m4v`, which would look like one). Names that
    /// still coincide (ignoring case: a Mac's file system would) — the same base name in two
    /// folders of a list — each get `-` and 8 hex digits of a hash of the input's path: stable
    /// from run to run, whatever else the list holds.
    static func names(for inputs: [URL]) -> [String] {
        let plain = inputs.map(plainName)
        var uses: [String: Int] = [:]
        for name in plain { uses[name.lowercased(), default: 0] += 1 }
        return zip(inputs, plain).map { input, name in
            uses[name.lowercased()]! > 1 ? name + "-" + String(format: "%08x", UInt32(truncatingIfNeeded: input.path.fnv1a64)) : name
        }
    }

    /// The sanitized last component of `input`.
    static func plainName(_ input: URL) -> String {
        var base = input.lastPathComponent
        let suffix = input.pathExtension
        if suffix.lowercased() == "zip" || OutputLayout.modelFileExtensions.contains(suffix.lowercased())
            || VideoFrames.extensions.contains(suffix.lowercased()) {
            base = String(base.dropLast(suffix.count + 1)) + "-" + suffix.lowercased()
        }
        var name = String(base.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
        // A leading dot would hide the folder from ls.
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        return name.isEmpty ? "capture" : name
    }
}
