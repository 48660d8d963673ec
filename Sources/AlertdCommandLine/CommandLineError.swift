/// A command line that could not be understood. Printed as `Error: <message>`
/// followed by the usage line, and the tool exits with ``ExitCode/usage``.
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable code such as `unknown_option`.
    public let code: Code
    /// A sentence a person can act on, without the `Error:` prefix.
    public let message: String
    /// The command the error belongs to, e.g. `["alertctl", "validate"]`;
    /// it picks the usage line and the `--help` hint. The parser fills it in.
    public package(set) var commandPath: [String]

    public init(code: Code, message: String, commandPath: [String] = []) {
        self.code = code
        self.message = message
        self.commandPath = commandPath
    }

    public var description: String { "\(message) [\(code.rawValue)]" }

    /// Stable error codes; tests and wrappers match on these.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let unknownOption = Code(rawValue: "unknown_option")
        public static let missingValue = Code(rawValue: "missing_value")
        public static let unexpectedValue = Code(rawValue: "unexpected_value")
        public static let invalidValue = Code(rawValue: "invalid_value")
        public static let unknownSubcommand = Code(rawValue: "unknown_subcommand")
        public static let unexpectedArgument = Code(rawValue: "unexpected_argument")
        public static let missingArgument = Code(rawValue: "missing_argument")
        /// Options that parse one by one but do not make sense together.
        public static let invalidCombination = Code(rawValue: "invalid_combination")
        /// A single-value option given more than once.
        public static let repeatedOption = Code(rawValue: "repeated_option")
    }

    /// `--titel` when `--title` exists.
    public static func unknownOption(_ spelling: String, suggestion: String?) -> CommandLineError {
        let hint = suggestion.flatMap { $0 == spelling ? nil : $0 }.map { " Did you mean '\($0)'?" } ?? ""
        return CommandLineError(code: .unknownOption, message: "Unknown option '\(spelling)'.\(hint)")
    }

    /// `--title` as the last word, or followed by another option (`next`),
    /// which may have been meant as the value: `--comment -rf`.
    public static func missingValue(for option: CommandOption, before next: String? = nil) -> CommandLineError {
        var message = "Missing value for '\(option.synopsisName)'"
        if let next, option.name.count > 1 {
            message += ". To give '\(next)' as its value, write --\(option.name)='\(next)'."
        }
        return CommandLineError(code: .missingValue, message: message)
    }

    /// `--title a --title b`: an option that takes one value, given again.
    /// Keeping the last one silently would hide a mistake in a script.
    public static func repeatedOption(_ option: CommandOption, values: [String]) -> CommandLineError {
        let list = values.map { "'\($0)'" }.joined(separator: ", ")
        let times = values.count == 2 ? "twice" : "\(values.count) times"
        return CommandLineError(
            code: .repeatedOption,
            message: "'\(option.synopsisName)' takes one value but was given \(times) (\(list)); give it once.")
    }

    /// An option of a command group, given before the subcommand, that the
    /// subcommand does not take: `alertctl --socket x validate`.
    public static func notInherited(_ option: CommandOption, group: String, command: [String]) -> CommandLineError {
        CommandLineError(
            code: .unknownOption,
            message: "'--\(option.name)' before the subcommand is an option of '\(group)' that "
                + "'\(command.joined(separator: " "))' does not take; give the subcommand's options after it.")
    }

    /// `--json=yes`: flags take no value.
    public static func unexpectedValue(_ value: String, for option: CommandOption) -> CommandLineError {
        unexpectedValue(value, forFlag: option.name)
    }

    /// `--help=x`: the same for a flag every command has.
    public static func unexpectedValue(_ value: String, forFlag name: String) -> CommandLineError {
        CommandLineError(code: .unexpectedValue,
                         message: "The flag '--\(name)' does not take a value; remove '=\(value)'.")
    }

    /// A value outside an option's allowed set, or one in the wrong form.
    public static func invalidValue(_ value: String, for option: CommandOption, expected: String) -> CommandLineError {
        CommandLineError(code: .invalidValue,
                         message: "The value '\(value)' is invalid for '\(option.synopsisName)': \(expected)")
    }

    /// A word where a subcommand name was expected.
    public static func unknownSubcommand(_ name: String, suggestion: String?) -> CommandLineError {
        let hint = suggestion.flatMap { $0 == name ? nil : $0 }.map { " Did you mean '\($0)'?" } ?? ""
        return CommandLineError(code: .unknownSubcommand, message: "Unknown subcommand '\(name)'.\(hint)")
    }

    /// A positional argument the command has no place for.
    public static func unexpectedArgument(_ value: String) -> CommandLineError {
        CommandLineError(code: .unexpectedArgument, message: "Unexpected argument '\(value)'")
    }

    /// A required positional argument that was not given.
    public static func missingArgument(_ argument: CommandArgument) -> CommandLineError {
        CommandLineError(code: .missingArgument, message: "Missing expected argument '<\(argument.name)>'")
    }

    /// Options that conflict or depend on each other; `message` says how to fix it.
    public static func invalidCombination(_ message: String) -> CommandLineError {
        CommandLineError(code: .invalidCombination, message: message)
    }
}
