/// One named option of a command, e.g. `-t, --title <title>`.
public struct CommandOption: Sendable, Equatable {
    /// How many values an option takes.
    public enum Kind: Sendable, Equatable {
        /// On or off, no value: `--json`.
        case flag
        /// One value; given twice, a usage error: `--title <title>`.
        case single
        /// Any number of values, kept in order: `--label <label> ...`.
        case repeatable
    }

    /// The long name in kebab-case, without dashes: `dedup-key`.
    public let name: String
    /// The one-letter form, without the dash: `t` for `-t`.
    public let short: Character?
    /// The placeholder shown in help: `title` in `--title <title>`.
    public let valueName: String
    /// One line for the help text.
    public let help: String
    public let kind: Kind
    /// Returned by ``ParsedCommand/value(_:)`` when the option is not given,
    /// and shown in help.
    public let defaultValue: String?
    /// When not empty, the only values accepted; shown in help.
    public let allowedValues: [String]
    /// Values shell completion offers for an option whose value the command
    /// checks itself (so its own error, among the others, says what is wrong).
    public let suggestedValues: [String]

    public init(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        kind: Kind = .single, default defaultValue: String? = nil, allowedValues: [String] = [], suggestedValues: [String] = []
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName ?? name
        self.help = help
        self.kind = kind
        self.defaultValue = defaultValue
        self.allowedValues = allowedValues
        self.suggestedValues = suggestedValues
    }

    /// An on/off option.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> CommandOption {
        CommandOption(name, short: short, help: help, kind: .flag)
    }

    /// An option that takes one value.
    public static func value(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String,
        default defaultValue: String? = nil, allowedValues: [String] = [], suggestedValues: [String] = []
    ) -> CommandOption {
        CommandOption(name, short: short, valueName: valueName, help: help, kind: .single,
                      default: defaultValue, allowedValues: allowedValues, suggestedValues: suggestedValues)
    }

    /// An option that may be given many times.
    public static func repeatable(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String
    ) -> CommandOption {
        CommandOption(name, short: short, valueName: valueName, help: help, kind: .repeatable)
    }

    /// `--title <title>` or `--json`, as errors and usage lines quote it.
    public var synopsisName: String {
        kind == .flag ? "--\(name)" : "--\(name) <\(valueName)>"
    }
}
