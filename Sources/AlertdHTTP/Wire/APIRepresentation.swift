import FoundationEssentials
import AlertModel

/// The JSON the API answers with. Field names are snake_case and stable;
/// times are RFC 3339 in UTC with milliseconds. The daemon encodes these
/// types and ``AlertdClient`` decodes them, so both ends share one shape.
public enum APIRepresentation {
    /// Sorted keys, RFC 3339 times: what the daemon sends and `alertctl --json` prints.
    public static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(UTCTimestamp.iso8601(date))
        }
        return e
    }()

    /// Reads what ``encoder`` wrote.
    public static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let s = try c.decode(String.self)
            // The one reader of these times: Foundation's took a `+99:00` offset and a year before 0.
            guard let date = RFC3339.parse(s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an RFC 3339 time: \(s)")
            }
            return date
        }
        return d
    }()

    /// An alert with its deliveries, as `GET /v1/alerts/{id}` answers.
    public struct AlertDetail: Codable, Sendable, Equatable {
        public var id: AlertID
        public var state: AlertState
        public var createdAt: Date
        public var updatedAt: Date
        public var spec: AlertSpec
        /// Who closed the alert, when, and with what comment; absent while open.
        public var decision: AlertDecision?
        /// Present in `GET /v1/alerts/{id}`, absent in lists.
        public var deliveries: [DeliveryRecord]?
        /// The active silences that hold back this open alert's deliveries;
        /// absent when none does.
        public var silencedBy: [SilenceID]?
        /// When the open alert resolves by itself unless re-sent first
        /// (Alertmanager's `endsAt`); absent when it does not.
        public var resolvesAt: Date?
        /// Re-sends folded into the alert by its dedup key; absent when none was.
        public var repeats: AlertRepeats?
        /// The open groups the alert is a member of (one per grouped route
        /// it matched); present in `GET /v1/alerts/{id}` when there are any.
        public var groups: [AlertGroupID]?

        public init(_ alert: Alert, deliveries: [DeliveryRecord]? = nil, silencedBy: [SilenceID]? = nil, groups: [AlertGroupID]? = nil) {
            self.groups = groups.flatMap { $0.isEmpty ? nil : $0 }
            id = alert.id
            state = alert.state
            createdAt = alert.createdAt
            updatedAt = alert.updatedAt
            spec = alert.spec.withoutHandlerCredentials
            decision = alert.decision
            resolvesAt = alert.state == .open ? alert.resolvesAt : nil
            repeats = alert.repeats
            self.deliveries = deliveries
            self.silencedBy = silencedBy.flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The alert itself, e.g. for ``TerminalRenderer``.
        public var alert: Alert {
            Alert(id: id, spec: spec, state: state, createdAt: createdAt, updatedAt: updatedAt, decision: decision, resolvesAt: resolvesAt,
                  repeats: repeats)
        }

        package enum CodingKeys: String, CodingKey {
            case id, state, spec, decision, deliveries, repeats, groups
            case createdAt = "created_at"
            case updatedAt = "updated_at"
            case silencedBy = "silenced_by"
            case resolvesAt = "resolves_at"
        }
    }

    /// `GET /v1/alerts`.
    public struct AlertList: Codable, Sendable, Equatable {
        public var alerts: [AlertDetail]
        /// Pass as `cursor` for the next page; absent on the last page.
        public var nextCursor: AlertID?

        public init(alerts: [AlertDetail], nextCursor: AlertID? = nil) {
            self.alerts = alerts
            self.nextCursor = nextCursor
        }

        package enum CodingKeys: String, CodingKey {
            case alerts
            case nextCursor = "next_cursor"
        }
    }

    /// One item of a `POST /v1/alerts` answer.
    public struct SubmissionItem: Codable, Sendable, Equatable {
        /// The item's position in a batch; absent for a single alert.
        public var index: Int?
        public var id: AlertID?
        public var state: AlertState?
        public var deduplicated: Bool?
        /// Why this item of a batch was rejected.
        public var error: HTTPErrorBody.Content?

        public init(index: Int? = nil, id: AlertID? = nil, state: AlertState? = nil, deduplicated: Bool? = nil,
                    error: HTTPErrorBody.Content? = nil) {
            self.index = index
            self.id = id
            self.state = state
            self.deduplicated = deduplicated
            self.error = error
        }
    }

    /// A batch `POST /v1/alerts` answer.
    public struct BatchResult: Codable, Sendable, Equatable {
        public var accepted: Int
        public var rejected: Int
        public var results: [SubmissionItem]

        public init(accepted: Int, rejected: Int, results: [SubmissionItem]) {
            self.accepted = accepted
            self.rejected = rejected
            self.results = results
        }
    }

    /// `POST /v1/alerts/{id}/confirm|cancel|resolve` and `POST /v1/alerts/resolve`:
    /// the alert as the decision left it.
    public struct DecisionResult: Codable, Sendable, Equatable {
        public var id: AlertID
        public var state: AlertState
        public var decision: AlertDecision?
        /// The queued call of the decision's handler, when the alert has one.
        public var handlerDeliveryID: String?

        public init(id: AlertID, state: AlertState, decision: AlertDecision?, handlerDeliveryID: String? = nil) {
            self.id = id
            self.state = state
            self.decision = decision
            self.handlerDeliveryID = handlerDeliveryID
        }

        package enum CodingKeys: String, CodingKey {
            case id, state, decision
            case handlerDeliveryID = "handler_delivery_id"
        }
    }

    /// A 409 to a decision: the error (`already_decided`) and the alert as
    /// the first decision left it.
    public struct DecisionConflict: Codable, Sendable, Equatable {
        public var error: HTTPErrorBody.Content
        public var alert: DecisionResult

        public init(error: HTTPErrorBody.Content, alert: DecisionResult) {
            self.error = error
            self.alert = alert
        }
    }

    /// `POST /v1/alerts/{id}/replay` and `POST /v1/deliveries/replay`.
    public struct ReplayResult: Codable, Sendable, Equatable {
        /// Dead deliveries made pending again.
        public var replayed: Int

        public init(replayed: Int) { self.replayed = replayed }
    }

    package static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        encoding(value, status: status)
    }

    /// `items` as ``json(_:status:)`` writes them, the same bytes, encoded
    /// ``elementsAtOnce`` at a time with a yield between: a listing of
    /// thousands held one of the cooperative pool's threads (two on a
    /// 2-core machine) for tens of milliseconds, and every request queued
    /// behind it waited that long.
    package static func jsonArray<T: Encodable>(_ items: [T], status: Int = 200) async -> HTTPResponse {
        var body = Data()
        var run = 0
        do {
            try await appendArray(items, to: &body, run: &run)
        } catch {
            return .error(status: 500, code: "internal", message: "The answer could not be encoded: \(error)")
        }
        return .json(status: status, body: body)
    }

    /// Appends `items` as a JSON array, yielding once every
    /// ``elementsAtOnce`` elements, `run` counting them across calls: a
    /// few groups of thousands of alerts each are as long to encode as a
    /// listing of them.
    package static func appendArray<T: Encodable>(_ items: [T], to body: inout Data, run: inout Int) async throws {
        body.append(UInt8(ascii: "["))
        var start = 0
        while start < items.count {
            if run >= elementsAtOnce {
                run = 0
                await Task.yield()
            }
            let end = Swift.min(start + elementsAtOnce - run, items.count)
            if start > 0 { body.append(UInt8(ascii: ",")) }
            let part = try encoder.encode(Array(items[start..<end]))
            body.append(part.dropFirst().dropLast())
            run += end - start
            start = end
        }
        body.append(UInt8(ascii: "]"))
    }

    /// How many elements ``jsonArray(_:status:)`` encodes between yields.
    package static let elementsAtOnce = 256

    /// `value` through ``encoder``.
    package static func encoding<T: Encodable>(_ value: T, status: Int) -> HTTPResponse {
        do {
            return .json(status: status, body: try encoder.encode(value))
        } catch {
            return .error(status: 500, code: "internal", message: "The answer could not be encoded: \(error)")
        }
    }
}
