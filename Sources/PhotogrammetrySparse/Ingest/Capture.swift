import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// One usable image of a capture.
public struct CaptureImage: Sendable {
    /// The path relative to the capture's image folder (COLMAP's image NAME).
    public var name: String
    public var url: URL
    /// Size after EXIF orientation.
    public var width: Int
    public var height: Int
    public var exif: ImageMetadata
}

/// The images of one capture, read from a folder or a zip, with what was rejected and why.
public struct Capture: Sendable {
    /// The folder the image names are relative to.
    public var imageRoot: URL
    /// The capture as given: its folder, or where its zip was unpacked. Masks are looked for
    /// between here and ``imageRoot``, never outside.
    public var root: URL
    /// Usable images, ordered by name.
    public var images: [CaptureImage]
    public var rejected: [RejectedImage]
    /// The videos the images are keyframes of, and why each was chosen; nil for photos.
    public var video: VideoSummary?
    /// For keyframes of a video found in a folder or zip: the capture's folders from its root
    /// down to the video's, where the video's sidecars (``ARKitScan``) are looked for; empty otherwise.
    public var videoFolders: [URL] = []

    public init(imageRoot: URL, root: URL, images: [CaptureImage], rejected: [RejectedImage],
                video: VideoSummary? = nil) {
        self.imageRoot = imageRoot
        self.root = root
        self.images = images
        self.rejected = rejected
        self.video = video
    }
    /// Every image file found, usable or not.
    public var imagesTotal: Int { images.count + rejected.count }
}

extension Capture {
    /// The capture's root and every folder below it down to the image folder, root first:
    /// where masks and depth images beside the images are looked for.
    var foldersFromRoot: [URL] {
        var folders: [URL] = []
        let rootPath = root.standardizedFileURL.path
        var folder = imageRoot.standardizedFileURL
        while folder.path.hasPrefix(rootPath) {
            folders.insert(folder, at: 0)
            if folder.path == rootPath { break }
            folder = folder.deletingLastPathComponent()
        }
        return folders
    }
}
