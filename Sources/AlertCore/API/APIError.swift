import Foundation

/// An error as the HTTP API and `alertctl --json` report it:
/// `{"error":{"code":"invalid_alert","message":"…","details":[{"field":…,"code":…,"message":…}]}}`.
/// Clients match on `code`; `message` is for people.
public struct APIError: Error, Sendable, Equatable, Codable {
    /// One problem with one field.
    public struct Detail: Sendable, Equatable, Codable {
        public let field: String
        public let code: String
        public let message: String

        public init(field: String, code: String, message: String) {
            self.field = field
            self.code = code
            self.message = message
        }
    }

    public let code: String
    public let message: String
    /// Per-field problems; empty when the error is not about fields.
    public let details: [Detail]

    public init(code: String, message: String, details: [Detail] = []) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// `invalid_alert`, with every problem the builder found as a detail.
    public init(invalidAlert errors: AlertSpecErrors) {
        let count = errors.errors.count
        self.init(
            code: "invalid_alert",
            message: "The alert is invalid: \(count) problem\(count == 1 ? "" : "s") found; see details.",
            details: errors.errors.map { Detail(field: $0.field, code: $0.code.rawValue, message: $0.message) })
    }

    /// The wire form, keys sorted so the bytes are stable.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
                                                 : [.sortedKeys, .withoutEscapingSlashes]
        // Only strings inside: encoding cannot fail.
        return (try? encoder.encode(Envelope(error: self))) ?? Data()
    }

    /// Reads the wire form, e.g. a daemon's error reply.
    public static func decode(_ data: Data) throws -> APIError {
        try JSONDecoder().decode(Envelope.self, from: data).error
    }

    private struct Envelope: Codable {
        let error: APIError
    }
}
