import AlertdCommandLine
import AlertdStore

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

    /// How a start that met these problems exits: 75 when another alertd
    /// holds the state directory (a script may wait and retry), 73 when the
    /// state directory or the store cannot be created or written (a full
    /// disk or an I/O error of SQLite's at the start included), 69 when a
    /// listener cannot be bound (its socket's directory is missing), as a
    /// failed bind exits, else 1.
    public var exitCode: ExitCode {
        let codes = Set(problems.map(\.code.rawValue))
        if codes.contains(DaemonError.Code.stateLocked.rawValue) { return .temporaryFailure }
        if codes.contains(DaemonError.Code.stateUnwritable.rawValue) || codes.contains(StoreError.Code.cannotOpen.rawValue) {
            return .cannotCreate
        }
        if codes.contains(DaemonError.Code.listener.rawValue) { return .unavailable }
        return .failure
    }
}
