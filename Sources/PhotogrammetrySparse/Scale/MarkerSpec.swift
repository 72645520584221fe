import Foundation
import PhotogrammetryCore
import PhotogrammetryBridge

/// Printed square markers a capture shows, and their printed size: what gives a model its metres
/// without depth images (`--markers DICT:SIZE_M`, or a `markers.json` beside the images).
///
/// A marker's size is the side of its black square, its one-cell black border included (what a
/// ruler across the printed marker measures); a ChArUco board's markers are given by their own
/// side, not the chessboard's squares. `markers.json` holds `{"dictionary": "DICT_4X4_50",
/// "size_m": 0.05}`, optionally with per-id sizes `"sizes_m": {"3": 0.1}` (with or without a
/// default `size_m`; a marker of no given size is not used).
public struct MarkerSpec: Sendable, Equatable, Codable {
    /// Which markers (OpenCV's predefined dictionaries).
    public var dictionary: MarkerDictionary
    /// The printed side of every marker without a size of its own, in metres.
    public var sizeMetres: Double?
    /// Printed sides of particular marker ids, in metres (sorted by id, for a stable key).
    public var sizesMetres: [IdSize]

    /// One marker's own printed size.
    public struct IdSize: Sendable, Equatable, Codable {
        public var id: Int
        public var metres: Double
    }

    /// The largest printed side accepted, in metres: a marker on a building's wall is a few metres;
    /// anything larger is a typo (millimetres given as metres).
    public static let largestSize = 100.0

    /// What a value the user gave is wrong with, without naming where it came from.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(dictionary: MarkerDictionary, sizeMetres: Double?, sizesMetres: [Int: Double] = [:]) throws {
        self.dictionary = dictionary
        self.sizeMetres = sizeMetres
        self.sizesMetres = sizesMetres.keys.sorted().map { IdSize(id: $0, metres: sizesMetres[$0]!) }
        if let sizeMetres { try Self.checkSize(sizeMetres, "size") }
        for entry in self.sizesMetres {
            try checkID(entry.id)
            try Self.checkSize(entry.metres, "size of marker \(entry.id)")
        }
        guard sizeMetres != nil || !self.sizesMetres.isEmpty else { throw Invalid(description: "no marker size given") }
    }

    /// `DICT:SIZE_M` as `--markers` takes it: `DICT_4X4_50:0.05`, `4x4_50:0.05`, `apriltag_36h11:0.1`.
    public init(parsing text: String) throws {
        guard let colon = text.lastIndex(of: ":") else {
            throw Invalid(description: "no size")
        }
        let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
        let sizeText = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        guard let size = Double(sizeText) else { throw Invalid(description: "size \"\(sizeText)\" is not a number of metres") }
        try self.init(dictionary: try Self.dictionary(named: name), sizeMetres: size)
    }

    /// The dictionary `name` means, or an error listing those there are.
    static func dictionary(named name: String) throws -> MarkerDictionary {
        do {
            return try MarkerDictionary(name: name)
        } catch {
            throw Invalid(description: "no marker dictionary \"\(name)\" (OpenCV's names, e.g. "
                          + MarkerDictionary.all.map(\.name).filter { $0.hasSuffix("_50") || $0.contains("APRIL") }.joined(separator: ", ") + ")")
        }
    }

    static func checkSize(_ metres: Double, _ what: String) throws {
        guard metres.isFinite, metres > 0, metres <= largestSize else {
            throw Invalid(description: "\(what) \(metres) is not a length in metres above 0 and at most \(Int(largestSize))")
        }
    }

    /// Throws unless `id` is a marker of the dictionary.
    public func checkID(_ id: Int) throws {
        guard (0..<dictionary.markerCount).contains(id) else {
            throw Invalid(description: "marker id \(id) is not in \(dictionary.name) (ids 0 to \(dictionary.markerCount - 1))")
        }
    }

    /// The printed side of marker `id` in metres; nil when none is given (the marker is not used).
    public func size(of id: Int) -> Double? {
        sizesMetres.first { $0.id == id }?.metres ?? sizeMetres
    }

    /// One line for the log: "DICT_4X4_50, 0.05 m".
    public var summary: String {
        var parts = [dictionary.name]
        if let sizeMetres { parts.append(String(format: "%g m", sizeMetres)) }
        if !sizesMetres.isEmpty { parts.append(sizesMetres.map { String(format: "id %d %g m", $0.id, $0.metres) }.joined(separator: ", ")) }
        return parts.joined(separator: ", ")
    }
}

extension MarkerSpec {
    /// The file a capture's marker description is in, beside its images.
    public static let fileName = "markers.json"

    /// Reads a `markers.json`, strictly: an object with `dictionary` (a string), `size_m` and/or
    /// `sizes_m` (an object of id strings to numbers), nothing else.
    /// - Throws: ``PipelineError/invalidInput(_:)``: one line naming the file and what is wrong.
    public static func load(_ url: URL) throws -> MarkerSpec {
        func invalid(_ what: String) -> PipelineError {
            PipelineError.invalidInput("\(url.path): \(what) (want {\"dictionary\": \"DICT_4X4_50\", \"size_m\": 0.05}, "
                                       + "optionally \"sizes_m\": {\"ID\": METRES})")
        }
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { throw invalid("not a regular file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        // A marker description is a few lines; a large file is not one.
        guard let bytes = attributes?[.size] as? NSNumber, bytes.intValue <= 1 << 20 else { throw invalid("larger than 1 MiB") }
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw invalid("not a JSON object")
        }
        let known: Set<String> = ["dictionary", "size_m", "sizes_m"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) { throw invalid("unknown key \"\(unknown)\"") }
        guard object["dictionary"] is String else { throw invalid("\"dictionary\" must be a string") }
        // The typed fields through JSONDecoder, which takes no boolean or string for a number.
        struct File: Decodable {
            var dictionary: String
            var size_m: Double?
            var sizes_m: [String: Double]?
        }
        guard let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw invalid("\"size_m\" must be a number and \"sizes_m\" an object of marker ids to numbers")
        }
        let name = file.dictionary, size = file.size_m
        var sizes: [Int: Double] = [:]
        for (key, metres) in file.sizes_m ?? [:] {
            guard let id = Int(key), String(id) == key else { throw invalid("\"sizes_m\" key \"\(key)\" is not a marker id") }
            sizes[id] = metres
        }
        do {
            return try MarkerSpec(dictionary: try dictionary(named: name), sizeMetres: size, sizesMetres: sizes)
        } catch let error as Invalid {
            throw invalid(error.description)
        }
    }

    /// The `markers.json` a capture carries beside its images: in the image folder or a folder
    /// above it inside the capture, nearest the capture's root first (as masks are found).
    public static func discover(in capture: Capture) -> URL? {
        for folder in capture.foldersFromRoot {
            let url = folder.appendingPathComponent(fileName)
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
        return nil
    }
}
