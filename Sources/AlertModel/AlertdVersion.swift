/// The version of alertd and alertctl, printed by `--version`.
public enum AlertdVersion {
    public static let current = "0.1.0"
    /// The `User-Agent` of every request the daemon makes.
    public static let userAgent = "alertd/\(current)"
}
