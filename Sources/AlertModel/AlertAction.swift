/// A decision a person can take on an alert: a button label plus the webhook
/// the daemon calls when the person picks it.
public struct AlertAction: Sendable, Equatable, Hashable, Codable {
    /// The text shown to the person, e.g. `Restart`.
    public let label: String
    /// The handler URL, `http` or `https` only.
    public let url: String
    /// The HTTP method used to call the handler.
    public let method: HTTPMethodName

    public init(label: String, url: String, method: HTTPMethodName = .post) {
        self.label = label
        self.url = url
        self.method = method
    }

    private enum CodingKeys: String, CodingKey {
        case label, url, method
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decode(String.self, forKey: .label)
        url = try c.decode(String.self, forKey: .url)
        method = try c.decodeIfPresent(HTTPMethodName.self, forKey: .method) ?? .post
    }
}

/// The HTTP methods a handler may be called with.
public enum HTTPMethodName: String, Sendable, Codable, CaseIterable {
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case get = "GET"
}

/// Which of an alert's two actions.
public enum ActionKind: String, Sendable, Codable, CaseIterable {
    case confirm
    case cancel
}
