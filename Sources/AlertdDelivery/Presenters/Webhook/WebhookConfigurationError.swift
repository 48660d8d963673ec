/// A webhook presenter's settings cannot be used.
public enum WebhookConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The signing secret is not `whsec_` + base64 of at least 16 bytes.
    case invalidSecret(reason: String)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .invalidSecret: "invalid_webhook_secret"
        }
    }

    /// A sentence a person can act on.
    public var message: String {
        switch self {
        case .invalidSecret(let reason):
            "The webhook secret cannot be used: \(reason). Use `whsec_` followed by the base64 of 16 to 64 random bytes, e.g. `whsec_$(openssl rand -base64 32)`."
        }
    }

    public var description: String { "\(message) [\(code)]" }
}
