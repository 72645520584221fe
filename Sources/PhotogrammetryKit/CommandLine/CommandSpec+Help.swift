/// The texts made from the specs: a subcommand's help, the global usage, docs/cli.md.
extension CommandSpec {
    /// Lines are wrapped to this many columns.
    static let width = 100
    /// Where an option's or argument's help starts.
    static let helpColumn = 26

    /// The options every invocation takes besides a subcommand.
    public static let globalOptions = [Option.help, Option("version", "Show the version and exit.")]

    /// What `photogrammetry SUB --help`, `SUB -h` and `photogrammetry help SUB` print.
    public var helpText: String {
        var sections = ["OVERVIEW: " + Self.wrap(abstract.split(separator: " ").map(String.init), indent: 10, first: 10),
                        "USAGE: " + Self.wrap(usageWords, indent: usagePrefix.count + 7, first: 7)]
        if !arguments.isEmpty {
            sections.append((["ARGUMENTS:"] + arguments.map { Self.entry($0.synopsis, $0.help, facts: $0.facts) }).joined(separator: "\n"))
        }
        sections.append((["OPTIONS:"] + options.map { Self.entry($0.label, $0.help, facts: $0.factWords) }).joined(separator: "\n"))
        sections += discussion.map { Self.wrap($0.split(separator: " ").map(String.init), indent: 0, first: 0) }
        return sections.joined(separator: "\n\n")
    }

    /// What `photogrammetry help` and `photogrammetry --help` print: the subcommands and what each does.
    public static var globalHelp: String {
        let sections = [
            "OVERVIEW: Photos or a video in, a textured 3D model out: offline, in batches.",
            "USAGE: photogrammetry SUBCOMMAND [ARGUMENTS] [OPTIONS]",
            (["SUBCOMMANDS:"] + all.map { entry($0.name, $0.abstract) }).joined(separator: "\n"),
            (["OPTIONS:"] + globalOptions.map { entry($0.label, $0.help) }).joined(separator: "\n"),
            wrap(epilogue(quote: "'").split(separator: " ").map(String.init), indent: 0, first: 0),
        ]
        return sections.joined(separator: "\n\n")
    }

    /// The last paragraph of the global usage (and the top of docs/cli.md), commands in `quote`.
    static func epilogue(quote q: String) -> String {
        "See \(q)photogrammetry help SUBCOMMAND\(q) or \(q)photogrammetry SUBCOMMAND --help\(q) for a subcommand's "
            + "arguments and options. Exit codes: 0 done; 1 failed (one line on standard error); 2 the command line "
            + "cannot be used (one line); 130 or 143 interrupted by SIGINT or SIGTERM."
    }

    /// `photogrammetry reconstruct`.
    var usagePrefix: String { "photogrammetry \(name) " }

    /// The usage line's words: the prefix, the arguments, the options (not `--help`) as
    /// `[--name VALUE]`; each option one unbreakable word.
    var usageWords: [String] {
        ["photogrammetry", name] + arguments.map(\.synopsis) + options.filter { $0.name != Option.help.name }.map(\.synopsis)
    }

    /// A help entry: the label, then the help and its facts from ``helpColumn`` (on the next
    /// line when the label reaches it).
    static func entry(_ label: String, _ help: String, facts: [String] = []) -> String {
        let words = help.split(separator: " ").map(String.init) + facts
        let head = "  " + label
        if head.count + 2 > helpColumn {
            return head + "\n" + String(repeating: " ", count: helpColumn) + wrap(words, indent: helpColumn, first: helpColumn)
        }
        return head.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + wrap(words, indent: helpColumn, first: helpColumn)
    }

    /// `words` joined by spaces into lines of at most ``width`` columns (a longer word gets its
    /// own line): the first line starts at column `first`, the others are indented to `indent`.
    static func wrap(_ words: [String], indent: Int, first: Int) -> String {
        var lines: [String] = []
        var line = ""
        var column = first
        for word in words {
            if !line.isEmpty && column + 1 + word.count > width {
                lines.append(line)
                line = ""
                column = indent
            }
            if !line.isEmpty { line += " "; column += 1 }
            line += word
            column += word.count
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }

    /// The subcommands' specs, as docs/cli.md: what `photogrammetry help --markdown` prints and
    /// `CommandSpecTests` compares the file with.
    public static var markdown: String {
        var lines = [
            "# Command line",
            "",
            "<!-- Made from the command specifications (Sources/PhotogrammetryKit/CommandLine/CommandSpec+Commands.swift)",
            "     by `photogrammetry help --markdown > docs/cli.md`: edit those, not this file. -->",
            "",
            "`photogrammetry SUBCOMMAND [ARGUMENTS] [OPTIONS]`. " + epilogue(quote: "`"),
            "",
            "| Subcommand | What it does |",
            "|---|---|",
        ]
        lines += all.map { "| [`\($0.name)`](#\($0.name)) | \($0.abstract) |" }
        lines += ["", "Every invocation also takes " + globalOptions.map { "`\($0.label)` (\($0.help.lowercasedFirst.dropLast()))" }
                    .joined(separator: " and ") + "."]
        for spec in all { lines += ["", spec.markdownSection] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// This subcommand's section of docs/cli.md.
    var markdownSection: String {
        var lines = ["## \(name)", "", abstract, "", "```", Self.wrap(usageWords, indent: usagePrefix.count, first: 0), "```"]
        if !arguments.isEmpty {
            lines += ["", "Arguments:", ""]
            lines += arguments.map { "- `\($0.synopsis)`: " + Self.markdownSentence($0.help, default: $0.defaultValue) }
        }
        lines += ["", "Options:", ""]
        lines += options.map { option in
            let label = (option.shortName.map { "`-\($0)`, " } ?? "") + "`--\(option.name)" + (option.valueName.map { " \($0)" } ?? "") + "`"
            let values = option.allowedValues.isEmpty ? "" : " Values: " + option.allowedValues.map { "`\($0)`" }.joined(separator: ", ") + "."
            return "- \(label): " + Self.markdownSentence(option.help + values, default: option.defaultValue)
        }
        lines += discussion.flatMap { ["", $0] }
        return lines.joined(separator: "\n")
    }

    /// `help`, then "Default: `x`." (code for a value, plain for a described behaviour).
    static func markdownSentence(_ help: String, default value: String?) -> String {
        guard let value else { return help }
        return help + " Default: " + (value.contains(" ") ? value : "`\(value)`") + "."
    }
}

extension CommandSpec.Argument {
    /// "(default: 1024)" as words to wrap, or none.
    var facts: [String] { CommandSpec.factWords(allowed: [], default: defaultValue) }
}

extension CommandSpec.Option {
    /// "(values: a, b; default: x)" as words to wrap, or none.
    var factWords: [String] { CommandSpec.factWords(allowed: allowedValues, default: defaultValue) }
}

extension CommandSpec {
    /// "(values: a, b; default: x)" as words to wrap, "default: x" one word so that a line never
    /// ends between them.
    static func factWords(allowed: [String], default value: String?) -> [String] {
        let facts = (allowed.isEmpty ? [] : ["values: " + allowed.joined(separator: ", ")]) + (value.map { ["default: \($0)"] } ?? [])
        guard !facts.isEmpty else { return [] }
        var words: [String] = []
        for word in "(\(facts.joined(separator: "; ")))".split(separator: " ").map(String.init) {
            if let last = words.last, last.hasSuffix("default:") { words[words.count - 1] += " " + word } else { words.append(word) }
        }
        return words
    }
}

extension String {
    /// The string with its first letter in lower case: "show the version".
    var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
