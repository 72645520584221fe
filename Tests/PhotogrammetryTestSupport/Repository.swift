import Foundation

/// The checkout the tests run in: its bundled captures and its files (tests never read `../shared`).
public enum Repository {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The bundled test and demo captures.
    public static let datasets = root.appendingPathComponent("Datasets")
}
