/// A small command-line parser: positionals, `--name value` / `--name=value` options and flags,
/// and short aliases (`-h`) of either.
///
/// The toolchain's swift-argument-parser cannot be fetched here, so this is hand-written and
/// strict: an unknown option, a missing value or a wrong positional count is an error that
/// names the offending word. Commands build it from their ``CommandSpec``.
public struct ArgumentParser {
    /// The options that take a value and the flags that do not, without their dashes.
    public var valueOptions: Set<String>
    public var flags: Set<String>
    /// Short aliases, without the dash, to the long names they stand for (`"h": "help"`). Any
    /// other word of one dash (`-`, `-3`, `-x`) is a positional, as before aliases existed.
    public var aliases: [Character: String]

    public init(valueOptions: Set<String>, flags: Set<String>, aliases: [Character: String] = [:]) {
        self.valueOptions = valueOptions
        self.flags = flags
        self.aliases = aliases
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

    /// The long name a word names as an option (`--name`, `--name=value`, or an alias `-x`),
    /// with its inline value; nil for a positional.
    func option(_ word: String) -> (name: String, inlineValue: String?)? {
        if word.hasPrefix("--"), word != "--" {
            let name = word.dropFirst(2)
            guard let equals = name.firstIndex(of: "=") else { return (String(name), nil) }
            return (String(name[..<equals]), String(name[name.index(after: equals)...]))
        }
        if word.count == 2, word.first == "-", let long = aliases[word.last!] { return (long, nil) }
        return nil
    }

    /// Parses `arguments` (without the program and subcommand names).
    public func parse(_ arguments: [String]) throws -> Parsed {
        var parsed = Parsed()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" && !onlyPositionals { onlyPositionals = true; continue }
            guard !onlyPositionals, let (name, inlineValue) = option(word) else {
                parsed.positionals.append(word)
                continue
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

    /// Whether `arguments` hold the flag `name` (or its alias) as an option, not as an option's
    /// value or after `--`: `--help` is honoured however wrong the rest of the line is.
    public func mentions(flag name: String, in arguments: [String]) -> Bool {
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            defer { index += 1 }
            guard let (word, inlineValue) = option(arguments[index]) else { continue }
            if word == name { return true }
            if valueOptions.contains(word) && inlineValue == nil { index += 1 }
        }
        return false
    }
}
