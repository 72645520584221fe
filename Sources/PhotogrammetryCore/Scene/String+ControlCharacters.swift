import Foundation

extension String {
    /// Whether the text holds a line break or another control character (Unicode category Cc,
    /// and the line and paragraph separators U+2028, U+2029): what a line-based file (COLMAP's
    /// `images.txt`) or a one-line message cannot hold.
    public var hasControlCharacters: Bool {
        unicodeScalars.contains(where: Self.isControl)
    }

    /// The text with its control characters spelled out (`\n`, `\r`, `\t`, else `\u{001B}`), so
    /// that a message quoting a hostile file name is still one line.
    public var escapingControlCharacters: String {
        guard hasControlCharacters else { return self }
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if Self.isControl(scalar) {
                    result += String(format: "\\u{%04X}", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
