import FoundationEssentials
import AlertModel

extension HTTPErrorBody {
    /// `invalid_alert`, with every problem the builder found as a detail.
    /// The API and `alertctl --json` both answer with exactly this.
    /// Past `AlertSpecErrors.listLimit` problems, `details` holds the first
    /// ones and `details_omitted` counts the rest.
    public init(invalidAlert errors: AlertSpecErrors) {
        let count = errors.count
        let listed = errors.omitted == 0 ? "see details" : "details lists the first \(errors.errors.count)"
        self.init(
            code: "invalid_alert",
            message: "The alert is invalid: \(count) problem\(count == 1 ? "" : "s") found; \(listed).",
            details: errors.errors.map { Detail(field: $0.field, code: $0.code.rawValue, message: $0.message) },
            detailsOmitted: errors.omitted == 0 ? nil : errors.omitted)
    }

    /// Reads the wire form, e.g. a daemon's error reply.
    public static func decode(_ data: Data) throws -> Content {
        try JSONDecoder().decode(HTTPErrorBody.self, from: data).error
    }
}
