import PhotogrammetryBridge

/// One subcommand's command line, declared once: its name, what it does, its arguments and its
/// options with their help, defaults and accepted values.
///
/// Everything a user reads or types about a subcommand comes from here: the parser
/// (``parse(_:)``), `photogrammetry SUB --help`, `photogrammetry help SUB`, the global usage
/// (``CommandSpec/globalHelp``) and docs/cli.md (``CommandSpec/markdown``). The specs themselves
/// are in CommandSpec+Commands.swift; what a value means is still the command's to work out.
public struct CommandSpec: Sendable {
    /// A positional argument.
    public struct Argument: Sendable {
        /// As the usage writes it: `INPUT`.
        public var name: String
        public var help: String
        /// May be left out (`[SIZE]`).
        public var isOptional = false
        /// One or more (`MODEL_FILE...`).
        public var repeats = false
        /// What an optional one is when left out, for the help.
        public var defaultValue: String?

        public init(_ name: String, _ help: String, isOptional: Bool = false, repeats: Bool = false,
                    defaultValue: String? = nil) {
            (self.name, self.help, self.isOptional, self.repeats, self.defaultValue) = (name, help, isOptional, repeats, defaultValue)
        }

        /// `INPUT`, `[SIZE]`, `MODEL_FILE...`.
        var synopsis: String { isOptional ? "[\(name)]" : repeats ? "\(name)..." : name }
    }

    /// An option: a flag, or one that takes a value.
    public struct Option: Sendable {
        /// The long name, without its dashes.
        public var name: String
        /// A one-letter alias (`-h`), if any.
        public var shortName: Character?
        /// What the value is called in the usage (`N`, `LEVEL`, `mask.json|MASK_DIR|none`);
        /// nil for a flag.
        public var valueName: String?
        public var help: String
        /// What the option is when not given: a value (`full`, from the options' real default)
        /// or, where the default is a behaviour, what happens.
        public var defaultValue: String?
        /// The values accepted, when they are a fixed list.
        public var allowedValues: [String]
        /// Must be given (shown without brackets; the command says what is missing).
        public var isRequired: Bool
        /// Checks a value as the command line is parsed; throws an ``ArgumentParser/Failure``.
        public var check: (@Sendable (String) throws -> Void)?

        public init(_ name: String, short: Character? = nil, value valueName: String? = nil, _ help: String,
                    default defaultValue: String? = nil, allowed allowedValues: [String] = [], required isRequired: Bool = false,
                    check: (@Sendable (String) throws -> Void)? = nil) {
            self.name = name
            self.shortName = short
            self.valueName = valueName
            self.help = help
            self.defaultValue = defaultValue
            self.allowedValues = allowedValues
            self.isRequired = isRequired
            self.check = check
        }

        /// `-h, --help`, `--detail LEVEL`.
        var label: String {
            (shortName.map { "-\($0), " } ?? "") + "--\(name)" + (valueName.map { " \($0)" } ?? "")
        }

        /// `[--detail LEVEL]`, `--tau T`.
        var synopsis: String {
            let word = "--\(name)" + (valueName.map { " \($0)" } ?? "")
            return isRequired ? word : "[\(word)]"
        }

        /// `-h, --help`: every subcommand's.
        public static let help = Option("help", short: "h", "Show this help and exit.")
    }

    /// The subcommand's name: `reconstruct`.
    public var name: String
    /// One sentence: what it does, for the global usage and the top of its help.
    public var abstract: String
    public var arguments: [Argument]
    /// Its options, in the order the help lists them (``Option/help`` is added last).
    public var options: [Option]
    /// Paragraphs after the options, if any: what it prints, where it writes.
    public var discussion: [String]

    public init(_ name: String, abstract: String, arguments: [Argument], options: [Option], discussion: [String] = []) {
        self.name = name
        self.abstract = abstract
        self.arguments = arguments
        self.options = options + [.help]
        self.discussion = discussion
    }

    /// The option named `name`, if the command has one.
    public func option(_ name: String) -> Option? { options.first { $0.name == name } }

    /// The parser of this command's options.
    public var parser: ArgumentParser {
        ArgumentParser(valueOptions: Set(options.filter { $0.valueName != nil }.map(\.name)),
                       flags: Set(options.filter { $0.valueName == nil }.map(\.name)),
                       aliases: Dictionary(uniqueKeysWithValues: options.compactMap { option in option.shortName.map { ($0, option.name) } }))
    }

    /// Whether `arguments` ask for the help (`--help` or `-h`, wherever they stand among the
    /// options): it is shown however wrong the rest of the line is.
    public func asksForHelp(_ arguments: [String]) -> Bool {
        parser.mentions(flag: Option.help.name, in: arguments)
    }

    /// Parses `arguments` (after the subcommand's name) and checks the values the options
    /// check (``Option/check``). Positional counts and what the values mean are the command's.
    /// - Throws: ``ArgumentParser/Failure``: an unknown option, a missing value, a bad value.
    public func parse(_ arguments: [String]) throws -> ArgumentParser.Parsed {
        let parsed = try parser.parse(arguments)
        for option in options {
            if let check = option.check, let value = parsed[option.name] { try check(value) }
        }
        return parsed
    }
}

extension ArgumentParser.Parsed {
    /// The `--threads` count, if given (checked by ``CommandSpec/Option/threads(default:)`` as it
    /// was parsed).
    public var threads: Int? { self["threads"].flatMap { Int($0) } }
}
