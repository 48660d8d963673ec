/// One problem with an alert, as `AlertSpec.Builder.build()` reports it.
public struct AlertSpecError: Error, Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The field at fault, in the JSON spelling: `title`, `labels.env`, `confirm.url`.
    public let field: String
    /// A stable, machine-readable code such as `missing_title`.
    public let code: Code
    /// A sentence a person can act on.
    public let message: String

    public init(field: String, code: Code, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    public var description: String { "\(field): \(message) [\(code.rawValue)]" }

    /// Stable error codes. Scripts and the API's clients match on these, so
    /// they never change once published.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            try c.encode(rawValue)
        }

        public static let missingTitle = Code(rawValue: "missing_title")
        public static let titleTooLong = Code(rawValue: "title_too_long")
        public static let controlCharacters = Code(rawValue: "control_characters")
        /// Text that is not UTF-8: alertctl's own, from what it reads (the JSON
        /// API refuses such a body whole, as `invalid_body`).
        public static let notUTF8 = Code(rawValue: "not_utf8")
        public static let messageTooLong = Code(rawValue: "message_too_long")
        public static let invalidSeverity = Code(rawValue: "invalid_severity")
        public static let invalidHandlerURL = Code(rawValue: "invalid_handler_url")
        public static let handlerURLTooLong = Code(rawValue: "handler_url_too_long")
        public static let handlerSchemeNotAllowed = Code(rawValue: "handler_scheme_not_allowed")
        public static let invalidHandlerMethod = Code(rawValue: "invalid_handler_method")
        public static let invalidAction = Code(rawValue: "invalid_action")
        public static let emptyActionLabel = Code(rawValue: "empty_action_label")
        public static let actionLabelTooLong = Code(rawValue: "action_label_too_long")
        public static let duplicateActionLabel = Code(rawValue: "duplicate_action_label")
        public static let invalidLabel = Code(rawValue: "invalid_label")
        public static let invalidLabelName = Code(rawValue: "invalid_label_name")
        public static let reservedLabelName = Code(rawValue: "reserved_label_name")
        public static let duplicateLabel = Code(rawValue: "duplicate_label")
        public static let labelValueTooLong = Code(rawValue: "label_value_too_long")
        public static let tooManyLabels = Code(rawValue: "too_many_labels")
        public static let emptyDedupKey = Code(rawValue: "empty_dedup_key")
        public static let dedupKeyTooLong = Code(rawValue: "dedup_key_too_long")
        public static let reservedDedupKey = Code(rawValue: "reserved_dedup_key")
        public static let invalidExpiry = Code(rawValue: "invalid_expiry")
        public static let invalidType = Code(rawValue: "invalid_type")
        public static let unknownField = Code(rawValue: "unknown_field")
        public static let unknownTemplate = Code(rawValue: "unknown_template")
        public static let missingTemplateValues = Code(rawValue: "missing_template_values")
        public static let invalidTemplateValue = Code(rawValue: "invalid_template_value")
    }
}

/// The problems `build()` found, in field order: the first
/// ``listLimit`` of them, and how many more there were. Never empty.
public struct AlertSpecErrors: Error, Sendable, Equatable, CustomStringConvertible {
    /// The most problems listed. A body with thousands of bad fields would
    /// otherwise get an answer larger than itself; the first ones say what to fix.
    public static let listLimit = 100

    /// The problems listed, at most ``listLimit``.
    public let errors: [AlertSpecError]
    /// Problems found beyond ``errors``: counted, not listed.
    public let omitted: Int

    /// Lists the first ``listLimit`` of `errors` and counts the rest, plus
    /// `omitted` problems already left out before.
    public init(_ errors: [AlertSpecError], omitted: Int = 0) {
        precondition(!errors.isEmpty, "AlertSpecErrors needs at least one error")
        self.errors = Array(errors.prefix(Self.listLimit))
        self.omitted = omitted + max(0, errors.count - Self.listLimit)
    }

    /// The same problems with only the first `count` of them listed (at least one).
    public func listing(first count: Int) -> AlertSpecErrors {
        let kept = max(1, count)
        guard kept < errors.count else { return self }
        return AlertSpecErrors(Array(errors.prefix(kept)), omitted: omitted + errors.count - kept)
    }

    /// Every problem found, listed or not.
    public var count: Int { errors.count + omitted }

    /// The codes, in order; handy in tests and logs.
    public var codes: [AlertSpecError.Code] { errors.map(\.code) }

    public var description: String {
        let listed = errors.map(\.description).joined(separator: "\n")
        return omitted == 0 ? listed : listed + "\n(\(omitted) more problem\(omitted == 1 ? "" : "s") not listed)"
    }
}
