/// How a command-line tool ends, as the number a shell sees. The values
/// follow `sysexits.h` where one fits, so scripts can tell a typo (64) from
/// an invalid alert (65) from a daemon that is not running (69).
public struct ExitCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything worked.
    public static let success = ExitCode(rawValue: 0)
    /// The command ran but what it tried failed (a delivery, a request).
    public static let failure = ExitCode(rawValue: 1)
    /// `alertctl send --wait`: the alert expired, or the wait timed out,
    /// before anyone decided (a cancellation is ``failure``).
    public static let expiredOrTimedOut = ExitCode(rawValue: 2)
    /// `alertctl send --wait`: an error (from alertd, or reaching it) left
    /// the decision unknown. Apart from ``failure``, which there means a
    /// person cancelled: a script must not take a refused token for a no.
    public static let decisionUnknown = ExitCode(rawValue: 3)
    /// The command line itself was wrong (`EX_USAGE`).
    public static let usage = ExitCode(rawValue: 64)
    /// The input was read but is not valid, e.g. an invalid alert (`EX_DATAERR`).
    public static let dataError = ExitCode(rawValue: 65)
    /// A service the command needs, such as the daemon, is not there (`EX_UNAVAILABLE`).
    public static let unavailable = ExitCode(rawValue: 69)
    /// A file or directory the command must write cannot be created or
    /// written (`EX_CANTCREAT`): alertd's state directory on a read-only or
    /// full disk.
    public static let cannotCreate = ExitCode(rawValue: 73)
    /// Standard output could not be written (`EX_IOERR`): `> /dev/full`,
    /// a full disk. What the command printed is not all there.
    public static let ioError = ExitCode(rawValue: 74)
    /// Try again later (`EX_TEMPFAIL`): another alertd holds the state
    /// directory.
    public static let temporaryFailure = ExitCode(rawValue: 75)
    /// The caller may not do this (`EX_NOPERM`): a refused token, or one
    /// without the scope the request needs.
    public static let noPermission = ExitCode(rawValue: 77)

    public var description: String { String(rawValue) }
}
