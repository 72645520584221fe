import Foundation

/// Stage outputs saved in the workspace, each under the key of what it was made from.
///
/// One file per stage, `work/checkpoints/NAME.json`: the key on the first line, the output as
/// JSON after it, written through a temporary file and a rename, so a killed run leaves the old
/// checkpoint or the new one, never half of one. A checkpoint is used only when its key equals
/// the key asked for; anything unreadable counts as absent and the stage runs again.
public struct CheckpointStore: Sendable {
    /// Where the checkpoint files are.
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// The file of stage `name`.
    public func url(_ name: String) -> URL {
        folder.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_") + ".json")
    }

    /// The output stage `name` saved under `key`; nil when there is none, it has another key or
    /// it cannot be read.
    public func load<T: Decodable>(_ type: T.Type, stage name: String, key: String) -> T? {
        guard let data = try? Data(contentsOf: url(name)),
              let newline = data.firstIndex(of: UInt8(ascii: "\n")),
              String(decoding: data[..<newline], as: UTF8.self) == key else { return nil }
        return try? JSONDecoder().decode(T.self, from: data[data.index(after: newline)...])
    }

    /// Saves `output` as stage `name`'s checkpoint under `key`, replacing any earlier one.
    public func save<T: Encodable>(_ output: T, stage name: String, key: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var data = Data(key.utf8)
        data.append(UInt8(ascii: "\n"))
        data.append(try JSONEncoder().encode(output))
        try writeAtomically(data, to: url(name))
    }

    /// Whether stage `name` has a checkpoint under `key` (without decoding it).
    public func has(stage name: String, key: String) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url(name)) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: key.utf8.count + 1)) ?? Data()
        return head == Data((key + "\n").utf8)
    }
}
