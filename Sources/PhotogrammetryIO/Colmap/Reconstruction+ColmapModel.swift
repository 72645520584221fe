import Foundation
import PhotogrammetryCore

/// A COLMAP model in both of COLMAP's formats: the text files people and our tools read, the
/// binary files most NeRF and Gaussian-splatting loaders read first.
extension Reconstruction {
    /// Writes the model as COLMAP text and binary, six files renamed into place together once
    /// all are written (a failure leaves the folder as it was).
    /// - Throws: ``ColmapTextError`` for an image name COLMAP text cannot hold (nothing is
    ///   written) or a file that cannot be written.
    public func writeColmap(to directory: URL) throws {
        try checkColmapTextNames()
        try Self.writeColmapFiles(colmapTextFiles() + colmapBinaryFiles(), to: directory)
    }

    /// Reads the COLMAP model in `directory`: its text files when it has `images.txt`, else its
    /// binary files.
    /// - Throws: ``ColmapTextError`` or ``ColmapBinaryError`` naming the file.
    public static func readColmap(from directory: URL) throws -> Reconstruction {
        let manager = FileManager.default
        if !manager.fileExists(atPath: directory.appendingPathComponent("images.txt").path),
           manager.fileExists(atPath: directory.appendingPathComponent("images.bin").path) {
            return try readColmapBinary(from: directory)
        }
        return try readColmapText(from: directory)
    }
}
