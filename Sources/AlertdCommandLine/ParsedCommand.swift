/// A command line after parsing: typed access to what the person gave.
///
/// Asking for an option the command did not declare is a programming error
/// and stops the process, so a misspelt name in code cannot pass silently.
public struct ParsedCommand: Sendable {
    /// The configurations from the root down to the selected command.
    package let chain: [CommandConfiguration]
    /// Values per long option name, in the order given; a flag records "".
    package let given: [String: [String]]
    /// Positional words per declared argument name.
    package let named: [String: [String]]

    /// The words positional arguments received, in order (after `--` too).
    public let arguments: [String]

    package init(chain: [CommandConfiguration], given: [String: [String]], named: [String: [String]], arguments: [String]) {
        self.chain = chain
        self.given = given
        self.named = named
        self.arguments = arguments
    }

    /// The selected command's configuration.
    public var configuration: CommandConfiguration { chain[chain.count - 1] }

    /// `["alertctl", "validate"]`.
    public var commandPath: [String] { chain.map(\.name) }

    /// The full help text of the selected command.
    public var helpText: String { HelpFormatter.help(for: chain) }

    /// The value given for a single-value option, or its default.
    public func value(_ name: String) -> String? {
        given[declared(name).name]?.last ?? declared(name).defaultValue
    }

    /// Every value given for a repeatable option, in order.
    public func values(_ name: String) -> [String] {
        given[declared(name).name] ?? []
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool {
        given[declared(name).name] != nil
    }

    /// Whether the person gave the option at all (a default does not count).
    public func isGiven(_ name: String) -> Bool {
        given[declared(name).name] != nil
    }

    /// The word given for a positional argument; a repeating one gives its first.
    public func argument(_ name: String) -> String? {
        argumentValues(name).first
    }

    /// Every word a (repeating) positional argument received.
    public func argumentValues(_ name: String) -> [String] {
        precondition(configuration.arguments.contains { $0.name == name },
                     "'\(commandPath.joined(separator: " "))' declares no argument '\(name)'")
        return named[name] ?? []
    }

    private func declared(_ name: String) -> CommandOption {
        guard let option = configuration.option(named: name) else {
            preconditionFailure("'\(commandPath.joined(separator: " "))' declares no option '--\(name)'")
        }
        return option
    }
}
