import FoundationEssentials

/// Where alertd keeps its state and socket when not told otherwise; alertd
/// and alertctl agree through these.
public enum AlertdPaths {
    /// `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`) or `./.alertd`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["STATE_DIRECTORY"], !dir.isEmpty {
            // systemd may list several, separated by colons; the first is ours.
            return String(dir.split(separator: ":").first ?? Substring(dir))
        }
        return FileManager.default.currentDirectoryPath + "/.alertd"
    }

    /// Where alertd puts its socket when not told otherwise; alertctl looks there too.
    public static func defaultSocketPath(
        stateDirectory: String = defaultStateDirectory(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let dir = environment["RUNTIME_DIRECTORY"], !dir.isEmpty {
            return String(dir.split(separator: ":").first ?? Substring(dir)) + "/alertd.sock"
        }
        return stateDirectory + "/alertd.sock"
    }

    /// The socket of the packaged service (alertd.service's `RuntimeDirectory=`).
    public static let serviceSocketPath = "/run/alertd/alertd.sock"

    /// Where alertctl connects when not told: alertd's default socket, or,
    /// when that does not exist (or `refuses` it: a socket left by a daemon
    /// killed without cleaning up) and the packaged service's directory
    /// does, the service's (a user outside its group cannot see into it, and
    /// is then told that, not that nothing is there). A login shell has no
    /// `$RUNTIME_DIRECTORY`, so without this every alertctl call on a
    /// server needed `--socket` or `ALERTD_SOCKET`; and a `make run` tried
    /// once in the working directory hid the service for good.
    public static func clientSocketPath(
        environment: [String: String] = ProcessInfo.processInfo.environment, service: String = serviceSocketPath,
        refuses: (String) -> Bool = { _ in false }
    ) -> String {
        let own = defaultSocketPath(stateDirectory: defaultStateDirectory(environment: environment), environment: environment)
        let files = FileManager.default
        let serviceDirectory = String(service[..<(service.lastIndex(of: "/") ?? service.startIndex)])
        guard files.fileExists(atPath: serviceDirectory) else { return own }
        return !files.fileExists(atPath: own) || refuses(own) ? service : own
    }
}
