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
}
