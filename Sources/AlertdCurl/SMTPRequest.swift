import FoundationEssentials

/// One mail for ``SMTPClient``: where to hand it over, the envelope, and
/// the message exactly as it goes on the wire.
public struct SMTPRequest: Sendable {
    /// How the connection is protected. `smtps://` URLs use TLS from the
    /// first byte whatever this says; for `smtp://` it decides STARTTLS.
    public enum TLS: String, Sendable, Equatable, CaseIterable {
        /// Plain text; for a relay on the same host.
        case none
        /// STARTTLS when the server offers it, plain text otherwise.
        case optional
        /// STARTTLS or no mail: a server that does not offer it fails the send.
        case required
    }

    /// `smtp://host[:port]` or `smtps://host[:port]`.
    public var url: String
    /// The envelope sender (`MAIL FROM`), a bare address.
    public var from: String
    /// The envelope recipients (`RCPT TO`), bare addresses.
    public var recipients: [String]
    /// The whole message, headers and body, lines ending in CRLF. libcurl
    /// dot-stuffs it.
    public var message: Data
    /// For `AUTH`; both or neither.
    public var username: String?
    public var password: String?
    public var tls: TLS
    /// A PEM file of the certificate authorities to trust for the server's
    /// certificate instead of the system's (a private CA); nil for the system's.
    public var caFile: String?
    public var connectTimeout: Duration
    /// Limit for the whole exchange, connecting included.
    public var timeout: Duration

    public init(
        url: String, from: String, recipients: [String], message: Data, username: String? = nil, password: String? = nil,
        tls: TLS = .optional, caFile: String? = nil, connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.from = from
        self.recipients = recipients
        self.message = message
        self.username = username
        self.password = password
        self.tls = tls
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }
}
