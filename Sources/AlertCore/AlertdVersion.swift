/// The version alertd reports about itself, e.g. in `User-Agent`.
public enum AlertdVersion {
    public static let current = "0.1.0"
}
