import Foundation

/// The JSON the API answers with. Field names are snake_case and stable;
/// times are RFC 3339 in UTC with milliseconds.
enum APIRepresentation {
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(Logger.timestamp(date))
        }
        return e
    }()

    static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let s = try c.decode(String.self)
            guard let date = try? Date(s, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an RFC 3339 time: \(s)")
            }
            return date
        }
        return d
    }()

    /// An alert with its deliveries, as `GET /v1/alerts/{id}` answers.
    struct AlertDetail: Codable, Sendable, Equatable {
        var id: AlertID
        var state: AlertState
        var createdAt: Date
        var updatedAt: Date
        var spec: AlertSpec
        var deliveries: [DeliveryRecord]?

        init(_ alert: Alert, deliveries: [DeliveryRecord]? = nil) {
            id = alert.id
            state = alert.state
            createdAt = alert.createdAt
            updatedAt = alert.updatedAt
            spec = alert.spec
            self.deliveries = deliveries
        }

        enum CodingKeys: String, CodingKey {
            case id, state, spec, deliveries
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }
    }

    /// `GET /v1/alerts`.
    struct AlertList: Codable, Sendable, Equatable {
        var alerts: [AlertDetail]
        var nextCursor: AlertID?

        enum CodingKeys: String, CodingKey {
            case alerts
            case nextCursor = "next_cursor"
        }
    }

    /// One item of a `POST /v1/alerts` answer.
    struct SubmissionItem: Codable, Sendable, Equatable {
        var index: Int?
        var id: AlertID?
        var state: AlertState?
        var deduplicated: Bool?
        var error: HTTPErrorBody.Content?
    }

    /// A batch `POST /v1/alerts` answer.
    struct BatchResult: Codable, Sendable, Equatable {
        var accepted: Int
        var rejected: Int
        var results: [SubmissionItem]
    }

    static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        do {
            return .json(status: status, body: try encoder.encode(value))
        } catch {
            return .error(status: 500, code: "internal", message: "The answer could not be encoded: \(error)")
        }
    }
}
