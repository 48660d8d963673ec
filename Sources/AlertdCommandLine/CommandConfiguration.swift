/// Everything the parser and the help text need to know about a command.
/// It is plain data, so a command declares itself in one literal.
public struct CommandConfiguration: Sendable {
    /// The word that selects the command: `validate`.
    public var name: String
    /// One line: what the command does.
    public var abstract: String
    /// Longer text for `--help`, wrapped at 80 columns; optional.
    public var discussion: String?
    /// Set on the root command to get `--version`.
    public var version: String?
    public var options: [CommandOption]
    public var arguments: [CommandArgument]
    /// Commands one level down; a command with subcommands is a group. A
    /// group's own options may be given before the subcommand too, and count
    /// for it when it declares the same option.
    public var subcommands: [any CLICommand.Type]
    /// Set on the root command: what its man page adds to the command tree
    /// (description, exit status, files...). The page is printed by the
    /// hidden root option `--generate-manpage`.
    public var manual: ManualPage?

    public init(
        name: String, abstract: String, discussion: String? = nil, version: String? = nil,
        options: [CommandOption] = [], arguments: [CommandArgument] = [],
        subcommands: [any CLICommand.Type] = [], manual: ManualPage? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.manual = manual
    }

    /// The declared option with this long name.
    public func option(named name: String) -> CommandOption? {
        options.first { $0.name == name }
    }

    /// The subcommand with this name.
    public func subcommand(named name: String) -> (any CLICommand.Type)? {
        subcommands.first { $0.configuration.name == name }
    }
}
