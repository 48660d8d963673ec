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

        var rows = command.options.map { option -> (String, String) in
            var label = option.short.map { "-\($0), " } ?? ""
            label += "--\(option.name)"
            if option.kind != .flag { label += " <\(option.valueName)>" }
            var notes: [String] = []
            if !option.allowedValues.isEmpty { notes.append("values: " + option.allowedValues.joined(separator: ", ")) }
            if let value = option.defaultValue { notes.append("default: \(value)") }
            let help = notes.isEmpty ? option.help : "\(option.help) (\(notes.joined(separator: "; ")))"
            return (label, help)
        }
        if command.version != nil { rows.append(("--version", "Show the version.")) }
        rows.append(("-h, --help", "Show help information."))
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
        var parts: [String] = []
        if !command.subcommands.isEmpty {
            parts.append("<subcommand>")
        } else {
            for option in command.options {
                switch option.kind {
                case .flag: parts.append("[--\(option.name)]")
                case .single: parts.append("[--\(option.name) <\(option.valueName)>]")
                case .repeatable: parts.append("[--\(option.name) <\(option.valueName)> ...]")
                }
            }
            for argument in command.arguments {
                let name = "<\(argument.name)>" + (argument.isRepeating ? " ..." : "")
                parts.append(argument.isOptional ? "[\(name)]" : name)
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
