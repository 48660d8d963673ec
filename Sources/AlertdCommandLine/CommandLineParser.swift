/// Turns `argv` into a selected command and its values, with
/// swift-argument-parser's manners: `--name value`, `--name=value`, `-t value`,
/// combined short flags (`-jq`), repeatable options, `--` ending the options,
/// and `-h/--help` on every command.
public enum CommandLineParser {
    /// What the command line asks for.
    public enum Outcome: Sendable {
        /// Run this command with these values.
        case run(any CLICommand.Type, ParsedCommand)
        /// Print this help text to standard output and exit 0.
        case help(String)
        /// Print this version line to standard output and exit 0.
        case version(String)
    }

    /// Parses `arguments` (without the program name) against `root`.
    public static func parse(_ arguments: [String], root: any CLICommand.Type) throws(CommandLineError) -> Outcome {
        var command = root
        var chain = [root.configuration]
        var index = 0

        // Subcommand names come first: `alertctl validate --title x`.
        while index < arguments.count, !command.configuration.subcommands.isEmpty,
              !arguments[index].hasPrefix("-") {
            let word = arguments[index]
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

        do {
            let parsed = try parseOptions(rest, chain: chain)
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
        for word in words where !word.hasPrefix("-") {
            guard let sub = command.configuration.subcommand(named: word) else {
                throw failure(.unknownSubcommand(word, suggestion: word.closest(in: subcommandNames(command.configuration))), chain)
            }
            command = sub
            chain.append(sub.configuration)
        }
        return HelpFormatter.help(for: chain)
    }

    private static func parseOptions(_ words: [String], chain: [CommandConfiguration]) throws(CommandLineError) -> ParsedCommand {
        let configuration = chain[chain.count - 1]
        var given: [String: [String]] = [:]
        var positionals: [String] = []
        var index = 0

        func record(_ option: CommandOption, _ value: String) throws(CommandLineError) {
            if !option.allowedValues.isEmpty, !option.allowedValues.contains(value) {
                let list = option.allowedValues.map { "'\($0)'" }.joined(separator: ", ")
                throw .invalidValue(value, for: option, expected: "use one of \(list).")
            }
            given[option.name, default: []].append(value)
        }
        func nextValue(for option: CommandOption) throws(CommandLineError) -> String {
            guard index < words.count, looksLikeValue(words[index]) else { throw .missingValue(for: option) }
            index += 1
            return words[index - 1]
        }

        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                positionals += words[index...]
                break
            }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                guard let option = configuration.option(named: name) else {
                    let candidates = configuration.options.map(\.name) + ["help"]
                    throw .unknownOption("--\(name)", suggestion: name.closest(in: candidates).map { "--\($0)" })
                }
                if option.kind == .flag {
                    if let inline { throw .unexpectedValue(inline, for: option) }
                    given[option.name, default: []].append("")
                } else {
                    // Not `inline ?? nextValue(...)`: `??` rethrows untyped errors.
                    if let inline { try record(option, inline) } else { try record(option, try nextValue(for: option)) }
                }
            } else if word.count > 1, word.hasPrefix("-"), !looksLikeValue(word) {
                // A group of short options: flags, optionally ending in one that
                // takes a value, either attached (`-tDisk`) or as the next word.
                let letters = Array(word.dropFirst())
                var position = 0
                while position < letters.count {
                    let letter = letters[position]
                    position += 1
                    guard let option = configuration.options.first(where: { $0.short == letter }) else {
                        throw .unknownOption("-\(letter)", suggestion: nil)
                    }
                    if option.kind == .flag {
                        given[option.name, default: []].append("")
                        continue
                    }
                    if position < letters.count {
                        try record(option, String(letters[position...]))
                    } else {
                        try record(option, try nextValue(for: option))
                    }
                    break
                }
            } else {
                positionals.append(word)
            }
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
            if !configuration.subcommands.isEmpty {
                throw .unknownSubcommand(extra, suggestion: extra.closest(in: subcommandNames(configuration)))
            }
            throw .unexpectedArgument(extra)
        }
        return ParsedCommand(chain: chain, given: given, named: named, arguments: positionals)
    }

    /// `-` (stdin) and negative numbers are values; `-x` and `--x` are options.
    private static func looksLikeValue(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word != "-" else { return true }
        let second = word.dropFirst().first
        return second.map { $0.isNumber || $0 == "." } ?? true
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
