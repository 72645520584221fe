/// A small command-line parser: positionals, `--name value` / `--name=value` options and flags.
///
/// The toolchain's swift-argument-parser cannot be fetched here, so this is hand-written and
/// strict: an unknown option, a missing value or a wrong positional count is an error that
/// names the offending word.
public struct ArgumentParser {
    /// The options that take a value and the flags that do not, without their dashes.
    public var valueOptions: Set<String>
    public var flags: Set<String>

    public init(valueOptions: Set<String>, flags: Set<String>) {
        self.valueOptions = valueOptions
        self.flags = flags
    }

    /// What a command line said.
    public struct Parsed: Equatable {
        public var positionals: [String] = []
        public var values: [String: String] = [:]
        public var flags: Set<String> = []

        /// The value of `--name`, if given.
        public subscript(name: String) -> String? { values[name] }
    }

    /// A parse failure, printed as one line.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Parses `arguments` (without the program and subcommand names).
    public func parse(_ arguments: [String]) throws -> Parsed {
        var parsed = Parsed()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name) {
                guard inlineValue == nil else { throw Failure(description: "--\(name) takes no value") }
                parsed.flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw Failure(description: "--\(name) needs a value") }
                    parsed.values[name] = arguments[index]
                    index += 1
                }
            } else {
                throw Failure(description: "unknown option --\(name)")
            }
        }
        return parsed
    }
}

extension ArgumentParser {
    /// The worker thread counts every command accepts: the range the core's parallel stages
    /// take (Poisson, fusion and PatchMatch refuse more than 256), so that a count they would
    /// refuse is an argument error before any work starts.
    public static let threadCounts = 1...256

    /// The value of `--threads`, the one check every command that takes it uses.
    /// - Throws: ``Failure`` (an argument error, exit 2) stating the accepted range.
    public static func threadCount(_ text: String) throws -> Int {
        guard let n = Int(text), threadCounts.contains(n) else {
            throw Failure(description: "--threads \(text): want an integer from \(threadCounts.lowerBound) to \(threadCounts.upperBound)")
        }
        return n
    }
}
