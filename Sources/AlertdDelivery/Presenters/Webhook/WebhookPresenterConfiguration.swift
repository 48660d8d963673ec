/// Settings for one webhook presenter. Every field has a default.
public struct WebhookPresenterConfiguration: Sendable, Equatable {
    /// Where alerts are POSTed; `http` or `https`.
    public var url: String = ""
    /// The Standard Webhooks signing secret, `whsec_` followed by base64.
    /// Without one, requests go out unsigned.
    public var secret: String?
    public var connectTimeout: Duration = .seconds(5)
    /// Limit for the whole request, connecting included.
    public var timeout: Duration = .seconds(10)
    /// Extra headers for every request, e.g. an `Authorization` the receiver
    /// wants. They cannot replace the content type, user agent or signature headers.
    public var headers: [String: String] = [:]
    /// How many deliveries to this webhook may run at once (the dispatcher enforces it).
    public var maxConcurrency: Int = 16

    public init(
        url: String = "", secret: String? = nil, connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(10),
        headers: [String: String] = [:], maxConcurrency: Int = 16
    ) {
        self.url = url
        self.secret = secret
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.headers = headers
        self.maxConcurrency = maxConcurrency
    }
}
