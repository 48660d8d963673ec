/// Everything that keeps alertd from running with a configuration, found in
/// one pass so an operator fixes them all at once. `--check-config` prints
/// each problem; startup logs each and exits.
public struct DaemonBuildError: Error, Sendable, CustomStringConvertible {
    /// At least one; each with its own code and sentence.
    public let problems: [DaemonError]

    public init(problems: [DaemonError]) {
        self.problems = problems
    }

    /// One problem a line.
    public var description: String { problems.map(\.message).joined(separator: "\n") }
}
