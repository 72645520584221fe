/// Failures of a command that went on past them (`stats A B C` with two unreadable files): one
/// error line each, in order, and exit code 1.
struct FailureLines: Error, CustomStringConvertible {
    let lines: [String]
    init(_ lines: [String]) { self.lines = lines }
    var description: String { lines.joined(separator: "; ") }
}
