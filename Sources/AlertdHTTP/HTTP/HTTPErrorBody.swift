import FoundationEssentials

/// The JSON error shape every alertd HTTP error uses:
/// `{"error": {"code": "body_too_large", "message": "…", "details": [...]}}`,
/// where `details` appears only when there is more than one problem to tell.
public struct HTTPErrorBody: Sendable, Equatable, Codable {
    /// One problem with one field, for validation errors.
    public struct Detail: Sendable, Equatable, Codable {
        public var field: String
        public var code: String
        public var message: String

        public init(field: String, code: String, message: String) {
            self.field = field
            self.code = code
            self.message = message
        }
    }

    public struct Content: Sendable, Equatable, Codable {
        public var code: String
        public var message: String
        public var details: [Detail]?
        /// Problems found beyond those in `details`, which lists only the
        /// first ones; absent when `details` is complete.
        public var detailsOmitted: Int?

        public init(code: String, message: String, details: [Detail]? = nil, detailsOmitted: Int? = nil) {
            self.code = code
            self.message = message
            self.details = details
            self.detailsOmitted = detailsOmitted
        }

        package enum CodingKeys: String, CodingKey {
            case code, message, details
            case detailsOmitted = "details_omitted"
        }
    }

    public var error: Content

    public init(code: String, message: String, details: [Detail]? = nil, detailsOmitted: Int? = nil) {
        error = Content(code: code, message: message, details: details, detailsOmitted: detailsOmitted)
    }

    /// The JSON bytes; keys sorted so the output is stable.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and arrays of strings always encode; there is no failure path.
        return (try? encoder.encode(self)) ?? Data(#"{"error":{"code":"internal","message":"error body could not be encoded"}}"#.utf8)
    }
}
