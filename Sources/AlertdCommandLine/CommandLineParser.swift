/// Turns `argv` into a selected command and its values, with
/// swift-argument-parser's manners: `--name value`, `--name=value`, `-t value`,
/// combined short flags (`-jq`), repeatable options, `--` ending the options,
/// and `-h/--help` on every command.
///
/// A command group's own options may also come before its subcommand
/// (`alertctl --socket /x list`); they count for the subcommand when it
/// declares the very same option.
public enum CommandLineParser {
    /// What the command line asks for.
    public enum Outcome: Sendable {
        /// Run this command with these values.
        case run(any CLICommand.Type, ParsedCommand)
        /// Print this help text to standard output and exit 0.
        case help(String)
        /// Print this version line to standard output and exit 0.
        case version(String)
        /// Print this man page (roff) to standard output and exit 0.
        case manualPage(String)
    }

    /// The hidden root option that prints the man page, for `make install`.
    public static let manualPageOption = "--generate-manpage"

    /// Parses `arguments` (without the program name) against `root`.
    public static func parse(_ arguments: [String], root: any CLICommand.Type) throws(CommandLineError) -> Outcome {
        var command = root
        var chain = [root.configuration]
        var index = 0
        // Values of group options given before the subcommand, by option name.
        var inherited: [String: [String]] = [:]
        var inheritedOptions: [String: CommandOption] = [:]

        // Subcommand names come first: `alertctl validate --title x`.
        while index < arguments.count, !command.configuration.subcommands.isEmpty {
            let word = arguments[index]
            if word.hasPrefix("-") {
                // Anything the group does not declare (`--help`, `--version`, a
                // typo), or cannot read, ends the search; the checks below deal
                // with it, so help still wins and errors are reported as usual.
                var reader = OptionReader(words: arguments, index: index, options: command.configuration.options)
                var read = inherited
                guard (try? reader.readOption(into: &read)) == true else { break }
                inherited = read
                for option in command.configuration.options where inherited[option.name] != nil {
                    inheritedOptions[option.name] = inheritedOptions[option.name] ?? option
                }
                index = reader.index
                continue
            }
            if word == "help" {
                return .help(try helpTopic(Array(arguments[(index + 1)...]), chain: chain, command: command))
            }
            guard let sub = command.configuration.subcommand(named: word) else {
                throw failure(.unknownSubcommand(word, suggestion: word.closest(in: subcommandNames(command.configuration))), chain)
            }
            command = sub
            chain.append(sub.configuration)
            index += 1
        }

        let rest = Array(arguments[index...])
        let beforeTerminator = rest.prefix { $0 != "--" }
        // Help wins over any other problem on the line, as in swift-argument-parser.
        if beforeTerminator.contains(where: { $0 == "-h" || $0 == "--help" }) {
            return .help(HelpFormatter.help(for: chain))
        }
        if let version = command.configuration.version, beforeTerminator.contains("--version") {
            return .version("\(command.configuration.name) \(version)")
        }
        if chain.count == 1, command.configuration.manual != nil, beforeTerminator.contains(manualPageOption) {
            return .manualPage(ManPage.page(for: root))
        }

        do {
            let parsed = try parseOptions(rest, chain: chain, inherited: inherited, inheritedOptions: inheritedOptions)
            return .run(command, parsed)
        } catch {
            throw failure(error, chain)
        }
    }

    /// Resolves `alertctl help validate` to the help of `validate`.
    private static func helpTopic(
        _ words: [String], chain: [CommandConfiguration], command: any CLICommand.Type
    ) throws(CommandLineError) -> String {
        var chain = chain
        var command = command
        for word in words where !word.hasPrefix("-") && word != "help" {
            guard let sub = command.configuration.subcommand(named: word) else {
                throw failure(.unknownSubcommand(word, suggestion: word.closest(in: subcommandNames(command.configuration))), chain)
            }
            command = sub
            chain.append(sub.configuration)
        }
        return HelpFormatter.help(for: chain)
    }

    private static func parseOptions(
        _ words: [String], chain: [CommandConfiguration],
        inherited: [String: [String]] = [:], inheritedOptions: [String: CommandOption] = [:]
    ) throws(CommandLineError) -> ParsedCommand {
        let configuration = chain[chain.count - 1]
        var given: [String: [String]] = [:]
        for (name, values) in inherited.sorted(by: { $0.key < $1.key }) {
            let option = inheritedOptions[name]!
            // Only the same option passes down: `render --url` is not the connection's `--url`.
            guard configuration.options.contains(option) else {
                let group = chain.dropLast().last { $0.options.contains(option) }?.name ?? chain[0].name
                throw .notInherited(option, group: group, command: chain.map(\.name))
            }
            given[name] = values
        }
        var positionals: [String] = []
        var reader = OptionReader(words: words, index: 0, options: configuration.options)

        while reader.index < words.count {
            let word = words[reader.index]
            if word == "--" {
                positionals += words[(reader.index + 1)...]
                break
            }
            if try reader.readOption(into: &given) { continue }
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2).prefix { $0 != "=" })
                if name == "help" { throw .unexpectedValue(String(word.dropFirst(7)), forFlag: "help") }
                let candidates = configuration.options.map(\.name) + ["help"]
                throw .unknownOption("--\(name)", suggestion: name.closest(in: candidates).map { "--\($0)" })
            }
            if word.count > 1, word.hasPrefix("-"), !OptionReader.looksLikeValue(word) {
                throw .unknownOption("-\(word.dropFirst().first!)", suggestion: nil)
            }
            positionals.append(word)
            reader.index += 1
        }

        for option in configuration.options where option.kind == .single {
            if let values = given[option.name], values.count > 1 { throw .repeatedOption(option, values: values) }
        }

        var named: [String: [String]] = [:]
        var remaining = positionals[...]
        for argument in configuration.arguments {
            if argument.isRepeating {
                named[argument.name] = Array(remaining)
                remaining = []
            } else if let first = remaining.first {
                named[argument.name] = [first]
                remaining = remaining.dropFirst()
            }
            if named[argument.name, default: []].isEmpty, !argument.isOptional {
                throw .missingArgument(argument)
            }
        }
        if let extra = remaining.first {
            // After `--` a subcommand's name is no subcommand: `alertctl -- list`.
            if !configuration.subcommands.isEmpty, configuration.subcommand(named: extra) == nil {
                throw .unknownSubcommand(extra, suggestion: extra.closest(in: subcommandNames(configuration)))
            }
            throw .unexpectedArgument(extra)
        }
        return ParsedCommand(chain: chain, given: given, named: named, arguments: positionals)
    }

    private static func subcommandNames(_ configuration: CommandConfiguration) -> [String] {
        configuration.subcommands.map { $0.configuration.name } + ["help"]
    }

    private static func failure(_ error: CommandLineError, _ chain: [CommandConfiguration]) -> CommandLineError {
        var error = error
        if error.commandPath.isEmpty { error.commandPath = chain.map(\.name) }
        return error
    }
}
