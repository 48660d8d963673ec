import AlertModel

/// The settings every service presenter shares: how long to wait.
public struct HTTPServiceSettings: Sendable, Equatable {
    public static let keys = ["connect_timeout", "timeout"]

    public var connectTimeout: Duration = .seconds(5)
    /// Limit for the whole request, connecting included.
    public var timeout: Duration = .seconds(10)

    public init() {}

    public init(reading object: [String: Any], at path: String, _ reader: JSONConfigReader) {
        if let d = reader.duration(object, "connect_timeout", at: path) { connectTimeout = d }
        if let d = reader.duration(object, "timeout", at: path) { timeout = d }
    }
}
