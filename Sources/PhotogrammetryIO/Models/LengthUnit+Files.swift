import Foundation
import PhotogrammetryCore

/// How each model format records a ``LengthUnit`` and reads it back, under
/// ``LengthUnit/metadataKey`` with the unit's ``LengthUnit/rawValue``.
///
/// glTF is metres by its specification and USD states `metersPerUnit`, so a file of either is
/// taken as metric unless it says `unknown`; OBJ, PLY and STL have no unit, so one of them is
/// metres only when its comment says so.
extension LengthUnit {
    /// `lengthUnit: metres`: the OBJ comment's and the STL header's text.
    var labelText: String { "\(Self.metadataKey): \(rawValue)" }

    /// The unit of a file in a unit-less format (OBJ, PLY, STL) whose comment said `value`:
    /// metres only when it says so, else (no comment, another tool's file) unknown.
    init(unitlessFormatComment value: Substring?) {
        self = value.map(String.init) == LengthUnit.metres.rawValue ? .metres : .unknown
    }

    /// The unit of a file in a metric format (glTF, USD) whose metadata said `value`: unknown
    /// only when it says so.
    init(metricFormatValue value: String?) {
        self = value == LengthUnit.unknown.rawValue ? .unknown : .metres
    }

    /// The word after `lengthUnit: ` in `text` (an OBJ comment line, an STL header), nil when
    /// there is none.
    static func labelValue(in text: Substring) -> Substring? {
        guard let range = text.range(of: "\(metadataKey): ") else { return nil }
        return text[range.upperBound...].prefix { $0.isLetter }
    }
}
