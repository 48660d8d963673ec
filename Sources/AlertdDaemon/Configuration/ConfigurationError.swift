import AlertdLogging

/// A configuration that cannot be used, with every problem found, each
/// prefixed by where it is (`routes[2].presenters[0]: no presenter named "opz"`).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let source: String
    public let problems: [String]
    /// The configuration as far as it could be read, what could not at its
    /// defaults (nil when the file could not be read or is not an object):
    /// building it finds the problems reading cannot, so a start or a
    /// reload can list them too (``withProblemsBuildingFinds(logger:)``).
    public let readSoFar: DaemonConfiguration?

    public init(source: String, problems: [String], readSoFar: DaemonConfiguration? = nil) {
        self.source = source
        self.problems = problems
        self.readSoFar = readSoFar
    }

    /// One line a problem, for a terminal: a key or value that holds a
    /// newline or a bidirectional control is shown escaped, so each problem
    /// stays one line and reads in its order.
    public var description: String {
        problems.map { "\(source): \(Logfmt.printable($0))" }.joined(separator: "\n")
    }
}
