import AlertModel

/// Writes help texts and usage lines in swift-argument-parser's layout:
/// OVERVIEW, USAGE, ARGUMENTS, OPTIONS and SUBCOMMANDS sections, help texts
/// starting in column 26, everything wrapped at 80 columns. The output
/// depends only on the configurations, so tests pin it exactly.
public enum HelpFormatter {
    /// The line width help is wrapped to.
    public static let width = 80
    /// Where option and argument help starts.
    package static let helpColumn = 26

    /// The full help of the last command in `chain` (root first), without a
    /// trailing newline.
    public static func help(for chain: [CommandConfiguration]) -> String {
        let command = chain[chain.count - 1]
        var sections: [String] = []
        sections.append(wrapped("OVERVIEW: " + command.abstract, indent: 0))
        if let discussion = command.discussion {
            sections.append(discussion.split(separator: "\n", omittingEmptySubsequences: false)
                .map { wrapped(String($0), indent: 0) }.joined(separator: "\n"))
        }
        sections.append(usage(for: chain, prefix: "USAGE: "))

        if !command.arguments.isEmpty {
            let rows = command.arguments.map { ("<\($0.name)>", $0.help) }
            sections.append("ARGUMENTS:\n" + table(rows))
        }

        let rows = optionRows(for: command).map { row -> (String, String) in
            var label = row.short.map { "-\($0), " } ?? ""
            label += "--\(row.name)"
            if let value = row.valueName { label += " <\(value)>" }
            return (label, row.text)
        }
        sections.append("OPTIONS:\n" + table(rows))

        if !command.subcommands.isEmpty {
            var subRows = command.subcommands.map { ($0.configuration.name, $0.configuration.abstract) }
            subRows.append(("help", "Show subcommand help information."))
            let path = chain.map(\.name).joined(separator: " ")
            sections.append("SUBCOMMANDS:\n" + table(subRows) + "\n\n  See '\(path) help <subcommand>' for detailed help.")
        }
        return sections.joined(separator: "\n\n")
    }

    /// The usage line(s), e.g. `alertctl validate [--json] [--title <title>]`,
    /// wrapped at 80 columns with continuation lines indented under the options.
    public static func usage(for chain: [CommandConfiguration], prefix: String = "Usage: ") -> String {
        let command = chain[chain.count - 1]
        let head = prefix + chain.map(\.name).joined(separator: " ")
        let parts = synopsis(of: command).map { part -> String in
            switch part {
            case .option(let option):
                switch option.kind {
                case .flag: "[--\(option.name)]"
                case .single: "[--\(option.name) <\(option.valueName)>]"
                case .repeatable: "[--\(option.name) <\(option.valueName)> ...]"
                }
            case .subcommand:
                "<subcommand>"
            case .argument(let argument):
                argument.isOptional ? "[\(argumentName(argument))]" : argumentName(argument)
            }
        }
        let indent = String(repeating: " ", count: head.count + 1)
        var lines: [String] = []
        var line = head
        for part in parts {
            if line.count + 1 + part.count > width, line != head, line != indent {
                lines.append(line)
                line = indent + part
            } else {
                line += (line == indent ? "" : " ") + part
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// One row of a command's OPTIONS: its spellings, and its help with the
    /// allowed values and the default. The man page lists the same rows.
    package struct OptionRow {
        package let short: Character?
        package let name: String
        /// nil for a flag.
        package let valueName: String?
        package let text: String
    }

    /// The command's options, then `--version` on the root and `-h, --help`.
    package static func optionRows(for command: CommandConfiguration) -> [OptionRow] {
        var rows = command.options.map { option in
            var notes: [String] = []
            if !option.allowedValues.isEmpty { notes.append("values: " + option.allowedValues.joined(separator: ", ")) }
            if let value = option.defaultValue { notes.append("default: \(value)") }
            let text = notes.isEmpty ? option.help : "\(option.help) (\(notes.joined(separator: "; ")))"
            return OptionRow(short: option.short, name: option.name, valueName: option.kind == .flag ? nil : option.valueName, text: text)
        }
        if command.version != nil { rows.append(OptionRow(short: nil, name: "version", valueName: nil, text: "Show the version.")) }
        rows.append(OptionRow(short: "h", name: "help", valueName: nil, text: "Show help information."))
        return rows
    }

    /// What a usage line lists, in order: the options, then `<subcommand>`
    /// for a group or the positional arguments for a leaf command. The man
    /// page's synopsis is made from the same list.
    package enum SynopsisPart {
        case option(CommandOption)
        case subcommand
        case argument(CommandArgument)
    }

    package static func synopsis(of command: CommandConfiguration) -> [SynopsisPart] {
        command.options.map(SynopsisPart.option)
            + (command.subcommands.isEmpty ? command.arguments.map(SynopsisPart.argument) : [.subcommand])
    }

    /// `<files> ...` for a repeating argument, else `<id>`.
    private static func argumentName(_ argument: CommandArgument) -> String {
        "<\(argument.name)>" + (argument.isRepeating ? " ..." : "")
    }

    /// Two-column rows: labels indented by two, help from column 26 (or on
    /// the next line when the label is too long), help wrapped at 80.
    private static func table(_ rows: [(String, String)]) -> String {
        let helpWidth = width - helpColumn
        let margin = String(repeating: " ", count: helpColumn)
        return rows.map { label, help in
            let lines = TextWrapper.wrap(help, width: helpWidth)
            let first = "  " + label
            var out: [String]
            if first.count + 2 <= helpColumn {
                out = [TextWrapper.pad(first, to: helpColumn) + lines[0]]
            } else {
                out = [first, margin + lines[0]]
            }
            out += lines.dropFirst().map { margin + $0 }
            return out.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    private static func wrapped(_ text: String, indent: Int) -> String {
        TextWrapper.wrap(text, width: width - indent).joined(separator: "\n")
    }
}
