import Foundation
import PhotogrammetryCore

/// The rules every model reader applies to what a file declares, for ``ModelReader`` and
/// ``ModelStats`` alike (one place for each rule): numbers are finite, an index names an element
/// that exists, and a declared size fits in the bytes that are there. A file that breaks one is
/// refused in one line naming the file and the element, never trusted, so that no NaN reaches an
/// output and no count allocates more than the file's size justifies.
///
/// Elements are numbered as the format itself refers to them: OBJ's vertices from 1, everything
/// else from 0.
enum ModelCheck {
    /// Refuses the first element of `values` with a non-finite component.
    /// - Parameters:
    ///   - element: the element's name with its number, e.g. `{ "vertex \($0)" }` for element `$0`.
    ///   - what: the values' kind: "coordinate", "normal", "texture coordinate", "colour".
    package static func requireFinite<V: SIMD>(_ values: [V], name: String, what: String,
                                       element: (Int) -> String) throws where V.Scalar: BinaryFloatingPoint {
        for (i, value) in values.enumerated() {
            for k in value.indices where !value[k].isFinite {
                throw nonFinite(value[k], name: name, what: what, element: element(i))
            }
        }
    }

    /// Refuses the first element of a flat array (`components` values an element) with a
    /// non-finite component.
    package static func requireFinite<T: BinaryFloatingPoint>(_ values: some Collection<T>, components: Int, name: String, what: String,
                                                      element: (Int) -> String) throws {
        for (i, value) in values.enumerated() where !value.isFinite {
            throw nonFinite(value, name: name, what: what, element: element(i / max(1, components)))
        }
    }

    private static func nonFinite<T: BinaryFloatingPoint>(_ value: T, name: String, what: String, element: String) -> ModelStatsError {
        ModelStatsError(message: "\(name): \(element) has a non-finite \(what) (\(Double(value)))")
    }

    /// Refuses an index outside `0..<count`.
    /// - Parameters:
    ///   - written: the index as the file wrote it (OBJ's count from 1 or back from the end).
    ///   - referrer: who refers, e.g. "face 3" or "line 12: a face".
    ///   - target: what is referred to, e.g. "vertex" or "texture coordinate".
    static func requireIndex(_ index: Int, written: Int? = nil, count: Int, name: String, referrer: @autoclosure () -> String,
                             target: String) throws {
        guard index < 0 || index >= count else { return }
        throw ModelStatsError(message: "\(name): \(referrer()) refers to \(target) \(written ?? index), but there are \(count)")
    }

    /// The bytes `count` elements of `elementSize` bytes take, `stride` apart, from `offset`: the
    /// end of the last one; nil when that overflows (a declared count no file can hold).
    package static func span(count: Int, elementSize: Int, stride: Int, offset: Int) -> Int? {
        guard count > 0 else { return offset }
        let (steps, overflowA) = stride.multipliedReportingOverflow(by: count - 1)
        let (last, overflowB) = offset.addingReportingOverflow(steps)
        let (end, overflowC) = last.addingReportingOverflow(elementSize)
        return overflowA || overflowB || overflowC ? nil : end
    }

    /// Whether `length` bytes from `offset` lie within `0..<size` (no overflow possible).
    package static func fits(offset: Int, length: Int, within size: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= size && length <= size - offset
    }
}
