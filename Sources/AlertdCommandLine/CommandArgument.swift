/// One positional argument of a command, e.g. `<id>`.
public struct CommandArgument: Sendable, Equatable {
    /// Shown as `<name>` in usage and help.
    public let name: String
    /// One line for the help text.
    public let help: String
    public let isOptional: Bool
    /// Takes every remaining positional word; only the last argument may repeat.
    public let isRepeating: Bool
    /// Words shell completion offers for it; the command checks the value.
    public let suggestedValues: [String]

    public init(_ name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false, suggestedValues: [String] = []) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeating = isRepeating
        self.suggestedValues = suggestedValues
    }
}
