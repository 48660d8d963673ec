import FoundationEssentials
import AlertdCrypto
import AlertdHTTP

/// Signs webhook requests as the Standard Webhooks specification says
/// (https://www.standardwebhooks.com): the receiver gets `webhook-id`,
/// `webhook-timestamp` and `webhook-signature`, the last being
/// `v1,` + base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")).
public struct StandardWebhookSigner: Sendable {
    /// The secret's prefix in the spec's text form.
    public static let secretPrefix = "whsec_"
    package static let minimumKeyBytes = 16

    private let key: [UInt8]

    /// `secret` is `whsec_` + base64 (the prefix may be left off, as the
    /// spec's own libraries allow).
    public init(secret: String) throws(WebhookConfigurationError) {
        let encoded = secret.hasPrefix(Self.secretPrefix) ? String(secret.dropFirst(Self.secretPrefix.count)) : secret
        guard !encoded.isEmpty else { throw .invalidSecret(reason: "it is empty") }
        guard let key = Data(base64Encoded: encoded) else {
            throw .invalidSecret(reason: secret.hasPrefix(Self.secretPrefix) ? "the part after `whsec_` is not valid base64" : "it is not base64 (nor `whsec_` and base64)")
        }
        guard key.count >= Self.minimumKeyBytes else {
            throw .invalidSecret(reason: "it decodes to \(key.count) bytes, fewer than \(Self.minimumKeyBytes)")
        }
        self.key = Array(key)
    }

    /// The `webhook-signature` value for one request.
    public func signature(id: String, timestamp: Int64, body: Data) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        return "v1," + Data(HMACSHA256.authenticate(key: key, message: message)).base64EncodedString()
    }

    /// The three headers for one request.
    public func headers(id: String, timestamp: Int64, body: Data) -> HTTPHeaders {
        [
            "webhook-id": id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature(id: id, timestamp: timestamp, body: body),
        ]
    }

    /// Whether a `webhook-signature` header (one or more space-separated
    /// `v1,<base64>` entries) holds a valid signature for the request; for
    /// receivers and tests. Compares in constant time.
    public func verify(signatureHeader: String, id: String, timestamp: Int64, body: Data) -> Bool {
        let expected = Array(signature(id: id, timestamp: timestamp, body: body).utf8)
        return signatureHeader.split(separator: " ").contains { constantTimeEquals(Array($0.utf8), expected) }
    }
}
