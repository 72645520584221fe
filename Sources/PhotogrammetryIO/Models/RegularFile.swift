import Foundation
import PhotogrammetryBridge

/// The check every input file passes before it is opened: it must be a regular file (or a
/// link to one). Opening a named pipe blocks until a writer comes, which may be never, and a
/// device such as /dev/zero never ends; `stat` answers without opening either.
public enum RegularFile {
    /// Refuses `url` unless it names a regular file, as one line naming it.
    /// - Parameter kind: what the file should be, for the message ("a model file").
    /// - Throws: ``ModelStatsError``: no such file, a folder, a named pipe, a socket or a device.
    public static func check(_ url: URL, kind: String) throws {
        let path = url.path
        var status = stat()
        guard stat(path, &status) == 0 else {
            let reason = errno == ENOENT || errno == ENOTDIR ? "no such file" : "cannot read (\(String(cString: strerror(errno))))"
            throw ModelStatsError(message: "\(path): \(reason)")
        }
        let type = status.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        let what: String
        switch type {
        case S_IFDIR: what = "a folder"
        case S_IFIFO: what = "a named pipe (FIFO)"
        case S_IFSOCK: what = "a socket"
        case S_IFCHR: what = "a character device"
        case S_IFBLK: what = "a block device"
        default: what = "an unusual kind of file"
        }
        throw ModelStatsError(message: "\(path): is \(what), not \(kind)")
    }

    /// The bytes of `url` when it is a regular file that can be read, else nil: for the files a
    /// model names beside itself (material libraries, textures), whose absence the readers
    /// report in their own words.
    static func contentsIfReadable(_ url: URL) -> Data? {
        guard (try? check(url, kind: "a file")) != nil else { return nil }
        return try? Data(contentsOf: url, options: .mappedIfSafe)
    }

    /// Refuses any of a COLMAP model's files (`cameras.txt`, `images.txt`, `points3D.txt` and
    /// their `.bin` twins) in `folder` that exists but is not a regular file, before the model is read.
    public static func checkColmapModel(in folder: URL) throws {
        for name in ["cameras", "images", "points3D"].flatMap({ ["\($0).txt", "\($0).bin"] }) {
            let file = folder.appendingPathComponent(name)
            var status = stat()
            guard stat(file.path, &status) == 0 else { continue }  // a missing file is the reader's to name
            try check(file, kind: "a COLMAP model file")
        }
    }
}
