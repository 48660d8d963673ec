/// The version of alertd and alertctl, printed by `--version`.
public enum AlertdVersion {
    public static let current = "0.1.0"
    /// When this version was made, as the man pages' header shows it.
    public static let date = "December 7, 2026"
    /// The `User-Agent` of every request the daemon makes.
    public static let userAgent = "alertd/\(current)"
}
