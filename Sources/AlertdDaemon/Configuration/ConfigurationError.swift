/// A configuration that cannot be used, with every problem found, each
/// prefixed by where it is (`routes[2].presenters[0]: no presenter named "opz"`).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let source: String
    public let problems: [String]

    public init(source: String, problems: [String]) {
        self.source = source
        self.problems = problems
    }

    public var description: String {
        problems.map { "\(source): \($0)" }.joined(separator: "\n")
    }
}
