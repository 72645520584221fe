import Foundation

/// One JSON object as one line of text, for `--progress json` and the batch's relay of its
/// captures' lines.
///
/// A real encoder writes every line (quotes, backslashes and control characters escaped by it,
/// not by hand). Then U+2028, U+2029 and U+0085, which JSON allows raw inside strings, are
/// escaped as well: line readers such as Python's `str.splitlines` break lines at them, and a
/// file name holding one would split an event in two. Outside strings JSON never has them, so
/// the substitution cannot change what the line means.
public enum JSONLine {
    /// `value` encoded on one line, keys sorted.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return oneLine(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A dictionary parsed from a JSON line, encoded again on one line, keys sorted.
    public static func encode(object: [String: Any]) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return oneLine(String(decoding: data, as: UTF8.self))
    }

    /// `json` with the separators a line reader may break at escaped.
    static func oneLine(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { breaksLines($0) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if breaksLines(scalar) {
                out.append(contentsOf: String(format: "\\u%04X", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func breaksLines(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}"
    }
}
