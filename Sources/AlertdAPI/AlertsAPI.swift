import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdHTTP
import AlertdStore

/// The `/v1/alerts` endpoints: submit, list, show, replay.
public struct AlertsAPI: Sendable {
    package let intake: AlertIntake
    package let store: any AlertStore
    package let metrics: DaemonMetrics
    package let onReplay: @Sendable () -> Void
    /// A page of alerts may hold 1,000 with their messages and labels: tens
    /// of MB each. Built 20 at once for one read token, they took the daemon
    /// to 2.2 GB and its health check past 5 s (``ListingGate``).
    private let listings: ListingGate
    /// When this alertd started: an alert's `resolves_at` is shown as the
    /// clock will resolve it (``StoreRules/shown(_:resendGraceFrom:)``).
    private let startedAt: Date

    public init(intake: AlertIntake, store: any AlertStore, metrics: DaemonMetrics = DaemonMetrics(),
                listings: ListingGate = ListingGate(), onReplay: @escaping @Sendable () -> Void, startedAt: Date = .distantPast) {
        self.startedAt = startedAt
        self.intake = intake
        self.store = store
        self.metrics = metrics
        self.listings = listings
        self.onReplay = onReplay
    }

    public func register(in router: inout APIRouter) {
        // Every refusal, the router's and the server's own included, is counted there, in one place.
        router.add("POST", "/v1/alerts", access: .token(.send), onRefusal: { metrics.rejected($0, count: $1) }) { req throws(APIError) in
            try await submit(req.http)
        }
        router.add("GET", "/v1/alerts", access: .token(.read)) { req throws(APIError) in
            try await listings.through { () throws(APIError) in try await list(req.http) }
        }
        router.add("GET", "/v1/alerts/{id}", access: .token(.read)) { req throws(APIError) in try await show(req.http, id: req[parameter: "id"]) }
        router.add("POST", "/v1/alerts/{id}/replay", access: .token(.admin)) { req throws(APIError) in
            try await replay(req.http, id: req[parameter: "id"])
        }
        router.add("POST", "/v1/deliveries/replay", access: .token(.admin)) { req throws(APIError) in try await replay(req.http, id: nil) }
    }

    // MARK: POST /v1/alerts

    /// What a submission's body held, each alert object read into a spec
    /// or its problems as the body was read.
    private enum SubmissionBody {
        case one(Result<AlertSpec, AlertSpecErrors>)
        /// An array's items, the first `max_batch` of them (nil for one
        /// that is not an object), and how many it held.
        case many([Result<AlertSpec, AlertSpecErrors>?], count: Int)
        case neither
    }

    /// One alert object, or an array of them. Each is checked by the same
    /// builder alertctl uses; the answer comes only after the store committed.
    package func submit(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let settings = intake.current
        let body = try APIRequestBody.read(request) { reader throws(StrictJSON.Failure) -> SubmissionBody in
            switch try reader.peek() {
            case UInt8(ascii: "{"):
                return .one(try Self.spec(reading: &reader, settings))
            case UInt8(ascii: "["):
                var items: [Result<AlertSpec, AlertSpecErrors>?] = []
                var count = 0
                try reader.elements { item throws(StrictJSON.Failure) in
                    count += 1
                    // Past the batch limit only counted: the batch is refused
                    // (350,000 `{}` in a megabyte, each checked, cost 0.2 s a request).
                    if count > settings.maxBatch {
                        _ = try item.value()
                    } else if try item.peek() == UInt8(ascii: "{") {
                        items.append(try Self.spec(reading: &item, settings))
                    } else {
                        _ = try item.value()
                        items.append(nil)
                    }
                }
                return .many(items, count: count)
            default:
                _ = try reader.value()
                return .neither
            }
        }
        let read: [Result<AlertSpec, AlertSpecErrors>?]
        switch body {
        case .one(.failure(let errors)):
            throw .invalidAlert(errors)
        case .one(.success(let spec)):
            let result = try await APIError.storeCall(await intake.submit([spec])[0])
            metrics.accepted([result])
            return APIRepresentation.json(
                APIRepresentation.SubmissionItem(id: result.id, state: result.state, deduplicated: result.deduplicated), status: 202)
        case .neither:
            throw .invalidBody("The body must be an alert object or an array of alert objects.")
        case .many(let items, let count):
            let maxBatch = settings.maxBatch
            guard count <= maxBatch else {
                throw APIError(status: 413, code: "batch_too_large",
                               message: "The array holds \(count) alerts; the limit is \(maxBatch). Split it into smaller batches.")
            }
            read = items
        }
        guard !read.isEmpty else {
            throw APIError(status: 400, code: "empty_batch", message: "The array is empty; send at least one alert.")
        }
        var items = [APIRepresentation.SubmissionItem?](repeating: nil, count: read.count)
        var specs: [(Int, AlertSpec)] = []
        // The whole batch lists about as many problems as ten alerts may: past
        // that, each item lists its first and counts the rest, so a body of
        // small bad items cannot make an answer many times its size.
        var listable = 10 * AlertSpecErrors.listLimit
        for (i, element) in read.enumerated() {
            switch element {
            case nil:
                items[i] = .init(index: i, error: .init(code: "invalid_body", message: "Item \(i) is not an alert object.", details: nil))
            case .success(let spec)?:
                specs.append((i, spec))
            case .failure(let errors)?:
                let listed = errors.listing(first: listable)
                listable -= listed.errors.count
                items[i] = .init(index: i, error: HTTPErrorBody(invalidAlert: listed).error)
            }
        }
        if !specs.isEmpty {
            let results = try await APIError.storeCall(await intake.submit(specs.map(\.1)))
            metrics.accepted(results)
            for ((i, _), r) in zip(specs, results) {
                items[i] = .init(index: i, id: r.id, state: r.state, deduplicated: r.deduplicated)
            }
        }
        let results = items.compactMap { $0 }
        let accepted = results.filter { $0.id != nil }.count
        // A batch's refused items, each under its own code (`invalid_alert`, `invalid_body`).
        for item in results where item.id == nil { metrics.rejected(item.error?.code ?? "invalid_alert") }
        return APIRepresentation.json(
            APIRepresentation.BatchResult(accepted: accepted, rejected: results.count - accepted, results: results),
            status: accepted > 0 ? 202 : 422)
    }

    /// The alert object at `reader` through the builder, then the handler URL
    /// policy. An object may name a configured template (`"template"`) with
    /// `"values"` for its placeholders; its own fields win over the
    /// template's, as options do over `alertctl --template`.
    private static func spec(reading reader: inout StrictJSON.Reader, _ settings: AlertIntake.Settings) throws(StrictJSON.Failure)
        -> Result<AlertSpec, AlertSpecErrors> {
        var (builder, passed) = try AlertSpec.Builder.reading(&reader, passing: ["template", "values"])
        // A null counts as leaving the field out, as for every other field.
        let templateField = passed["template"].flatMap { $0 is JSONNull ? nil : $0 }
        let rawValues = passed["values"].flatMap { $0 is JSONNull ? nil : $0 }
        if let templateField {
            // Not looked up by its JSON text: `123` is no name, and the
            // template called "123" is not the one meant.
            let templateName = templateField as? String
            if templateName == nil {
                builder = builder.problem(AlertSpecError(field: "template", code: .invalidType,
                                                         message: "`template` must be a template's name, a string such as \"disk-full\"."))
            }
            // Values of the wrong type are one problem, and still fill their
            // placeholders (with their JSON text, or, when `values` is no
            // object, each placeholder's name), so that the template's fields
            // do not come back as problems of their own (`missing_title`,
            // `missing_template_values`, an empty path segment).
            let template = templateName.flatMap { settings.templates[$0] }
            var values: [String: String] = [:]
            if let object = rawValues as? [String: Any] {
                for (name, value) in object { values[name] = value as? String ?? "\(value)" }
                let wrong = object.filter { !($0.value is String) }.keys.sorted()
                if !wrong.isEmpty {
                    builder = builder.problem(AlertSpecError(
                        field: "values", code: .invalidType,
                        message: "\(wrong.map { "`values.\($0)`" }.joined(separator: ", ")) must be \(wrong.count == 1 ? "a string" : "strings"): "
                            + "placeholders are filled with text, such as \"97\"."))
                }
            } else if rawValues != nil {
                values = Dictionary(uniqueKeysWithValues: (template?.placeholders ?? []).map { ($0, $0) })
                builder = builder.problem(AlertSpecError(field: "values", code: .invalidType,
                                                         message: "`values` must be an object of strings, one per placeholder."))
            }
            if let template {
                builder = template.fill(builder, values: values)
            } else if let templateName {
                let known = settings.templates.names
                builder = builder.problem(AlertSpecError(
                    field: "template", code: .unknownTemplate,
                    message: "There is no template `\(templateName)`; "
                        + (known.isEmpty ? "alertd has no templates configured." : "the templates are: \(known.joined(separator: ", ")).")))
            }
        } else if rawValues != nil {
            builder = builder.problem(AlertSpecError(field: "values", code: .unknownField,
                                                     message: "`values` fills a template's placeholders; name the template with `template`."))
        }
        if case .present(let key) = builder.dedupKey, LabelFingerprint.hasItsForm(key) {
            builder = builder.problem(AlertSpecError(
                field: "dedup_key", code: .reservedDedupKey,
                message: "`\(key)` has the form of a Prometheus label fingerprint (16 hex digits), the dedup key alertd gives "
                    + "alerts from Prometheus; give another, such as `disk-full:db1`."))
        }
        return settings.handlerPolicy.screening(builder.build(limits: settings.limits), of: builder)
    }

    // MARK: GET /v1/alerts

    /// The most `label` filters a listing takes.
    package static let maxLabelFilters = 64

    package func list(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        var query = AlertQuery()
        var problems: [HTTPErrorBody.Detail] = []
        // Taken once: the first of two won, and the second was not even checked.
        for name in ["state", "delivery_state", "limit", "cursor"] {
            let count = request.queryValues(name).count
            guard count > 1 else { continue }
            problems.append(.init(field: name, code: "repeated_parameter", message: "`\(name)` is given \(count) times; give it once (only `label` repeats)."))
        }
        if let s = request.queryValue("state") {
            if let state = AlertState(rawValue: s) { query.state = state } else {
                problems.append(.init(field: "state", code: "invalid_state",
                                      message: "`\(s)` is not a state; use one of \(AlertState.allCases.map(\.rawValue).joined(separator: ", "))."))
            }
        }
        if let d = request.queryValue("delivery_state") {
            if let state = DeliveryState(rawValue: d) { query.deliveryState = state } else {
                problems.append(.init(field: "delivery_state", code: "invalid_delivery_state",
                                      message: "`\(d)` is not a delivery state; use one of \(DeliveryState.allCases.map(\.rawValue).joined(separator: ", "))."))
            }
        }
        for raw in request.queryValues("label") {
            let parts = raw.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, AlertSpec.isValidLabelName(parts[0]) {
                query.labels.append((parts[0], parts[1]))
            } else {
                problems.append(.init(field: "label", code: "invalid_label", message: "`\(raw)` is not name=value with a valid label name."))
            }
        }
        // Each is a condition of the store's query, which has a depth limit; an alert has no more labels than this anyway.
        if query.labels.count > Self.maxLabelFilters {
            problems.append(.init(field: "label", code: "too_many_labels",
                                  message: "At most \(Self.maxLabelFilters) `label` filters are taken; this query has \(query.labels.count)."))
        }
        if let l = request.queryValue("limit") {
            if let n = QueryNumber.value(l), (1...1_000).contains(n) { query.limit = Int(n) } else {
                problems.append(.init(field: "limit", code: "invalid_limit", message: "`limit` must be a number from 1 to 1000, got `\(l)`."))
            }
        }
        if let c = request.queryValue("cursor") {
            if let id = AlertID(c) { query.before = id } else {
                problems.append(.init(field: "cursor", code: "invalid_cursor", message: "`cursor` must be the next_cursor of a previous page."))
            }
        }
        guard problems.isEmpty else {
            throw .invalidQuery(problems.map(\.message).joined(separator: " "), details: problems)
        }
        let page = try await APIError.storeCall(await store.alerts(matching: query))
        let silences = try await activeSilences()
        var work = FilterWork()
        var alerts: [APIRepresentation.AlertDetail] = []
        alerts.reserveCapacity(page.alerts.count)
        for alert in page.alerts {
            alerts.append(APIRepresentation.AlertDetail(StoreRules.shown(alert, resendGraceFrom: startedAt),
                                                        silencedBy: await work.silencing(heldBy: silences, alert)))
        }
        return APIRepresentation.json(APIRepresentation.AlertList(alerts: alerts, nextCursor: page.nextCursor))
    }

    // MARK: GET /v1/alerts/{id}

    package func show(_ request: HTTPRequest, id raw: String) async throws(APIError) -> HTTPResponse {
        guard let id = AlertID(raw),
              let record = try await APIError.storeCall(await store.record(id: id))
        else { throw .alertNotFound(id: raw) }
        var work = FilterWork()
        let silencedBy = await work.silencing(heldBy: try await activeSilences(), record.alert)
        return APIRepresentation.json(APIRepresentation.AlertDetail(StoreRules.shown(record.alert, resendGraceFrom: startedAt), deliveries: record.deliveries, silencedBy: silencedBy,
                                                                    groups: record.groups))
    }

    /// The silences active now, filed to find those that hold an alert back.
    private func activeSilences() async throws(APIError) -> SilenceIndex {
        SilenceIndex(try await APIError.storeCall(await store.silences()), at: Date())
    }

    // MARK: replay

    package func replay(_ request: HTTPRequest, id raw: String?) async throws(APIError) -> HTTPResponse {
        var alert: AlertID?
        if let raw {
            guard let id = AlertID(raw),
                  try await APIError.storeCall(await store.record(id: id)) != nil
            else { throw .alertNotFound(id: raw) }
            alert = id
        }
        let n = try await APIError.storeCall(await store.replayDead(alert: alert, now: Date()))
        if n > 0 { onReplay() }
        return APIRepresentation.json(APIRepresentation.ReplayResult(replayed: n))
    }
}
