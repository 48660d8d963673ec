import FoundationEssentials
import AlertModel
import AlertdHTTP
import AlertdStore

/// Alertmanager's silence API, as `amtool silence add/query/expire/import`
/// and `alertctl silence` use it: `POST` and `GET /api/v2/silences`, `GET`
/// and `DELETE /api/v2/silence/{id}`. Errors are Alertmanager's (a JSON string).
public struct AlertmanagerSilencesAPI: Sendable {
    package let store: any AlertStore
    /// Called when a silence changed or ended: what it held may be due now.
    package let onChange: @Sendable () -> Void

    public init(store: any AlertStore, onChange: @escaping @Sendable () -> Void) {
        self.store = store
        self.onChange = onChange
    }

    public func register(in router: inout APIRouter) {
        router.add("POST", "/api/v2/silences", access: .token(.admin), errors: .alertmanager) { req throws(APIError) in try await post(req.http) }
        router.add("GET", "/api/v2/silences", access: .token(.read), errors: .alertmanager) { req throws(APIError) in try await list(req.http) }
        router.add("GET", "/api/v2/silence/{id}", access: .token(.read), errors: .alertmanager) { req throws(APIError) in
            let raw = req[parameter: "id"]
            guard let silence = try await APIError.storeCall(await store.silence(id: SilenceID(rawValue: raw))) else { throw .silenceNotFound(raw) }
            return APIRepresentation.json(AlertmanagerRepresentation.Silence(silence, at: Date()))
        }
        router.add("DELETE", "/api/v2/silence/{id}", access: .token(.admin), errors: .alertmanager) { req throws(APIError) in
            let raw = req[parameter: "id"]
            guard try await APIError.storeCall(await store.expireSilence(id: SilenceID(rawValue: raw), now: Date())) != nil else {
                throw .silenceNotFound(raw)
            }
            onChange()
            return HTTPResponse(status: 200)
        }
    }

    // MARK: POST /api/v2/silences

    /// A postable silence. Without an `id` it is new; with one it changes
    /// that silence (see ``SilenceStore/saveSilence(_:replacing:now:)``),
    /// and an unknown id is a 404, after which amtool's import posts it anew.
    package func post(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        guard let object = try APIRequestBody.json(request) as? [String: Any] else {
            throw .invalidBody("The body must be a silence object with matchers, startsAt, endsAt, createdBy and comment.")
        }
        let now = Date()
        let (silence, replacing) = try Self.silence(from: object, now: now)
        switch try await APIError.storeCall(await store.saveSilence(silence, replacing: replacing, now: now)) {
        case .notFound:
            throw .silenceNotFound(replacing?.rawValue ?? "")
        case .tooCostly(let steps):
            throw APIError(SilenceError(.invalidSilence, """
                With this one, an alert could be held against silence regexes of \(steps) steps per character of a label, \
                more than the \(Silence.maxRegexStepsInForce) they may take together; expire some, use fewer or smaller regexes, \
                or start each with literal text (instance=~"db-1.*", not instance=~".*db-1.*"), so that fewer alerts are held against it.
                """))
        case .saved(let saved):
            onChange()
            return APIRepresentation.json(AlertmanagerRepresentation.SilenceCreated(silenceID: saved.id.rawValue))
        }
    }

    /// Reads and checks a postable silence: the silence under a new id,
    /// and the id it replaces, if any.
    package static func silence(from object: [String: Any], now: Date) throws(APIError) -> (Silence, SilenceID?) {
        func string(_ key: String) throws(APIError) -> String? {
            guard let raw = object[key], !StrictJSON.isNull(raw) else { return nil }
            guard let s = raw as? String else { throw .invalidBody("`\(key)` must be a string.") }
            return s
        }
        func time(_ key: String) throws(APIError) -> Date? {
            guard let s = try string(key) else { return nil }
            guard let date = RFC3339.parse(s) else { throw .invalidBody("`\(key)` must be an RFC 3339 time such as 2026-05-05T12:00:00Z, got `\(s)`.") }
            return date
        }
        guard let rawMatchers = object["matchers"] as? [Any] else {
            throw .invalidBody("`matchers` must be an array of {name, value, isRegex, isEqual} objects.")
        }
        var matchers: [LabelMatcher] = []
        for (i, raw) in rawMatchers.enumerated() {
            guard let m = raw as? [String: Any], let name = m["name"] as? String, let value = m["value"] as? String else {
                throw .invalidBody("`matchers[\(i)]` must be an object with string `name` and `value`.")
            }
            // Taken for its default, a flag of another type turned `a!="x"`
            // into `a="x"`: it silenced just the alerts meant to stay loud.
            func flag(_ key: String) throws(APIError) -> Bool? {
                guard let raw = m[key], !StrictJSON.isNull(raw) else { return nil }
                guard StrictJSON.isBoolean(raw), let flag = raw as? Bool else {
                    throw .invalidBody("`matchers[\(i)].\(key)` must be true or false.")
                }
                return flag
            }
            let wire = AlertmanagerRepresentation.Matcher(name: name, value: value, isRegex: try flag("isRegex") ?? false,
                                                          isEqual: try flag("isEqual"))
            do throws(SilenceError) {
                matchers.append(try wire.matcher())
            } catch {
                throw APIError(error)
            }
        }
        guard let endsAt = try time("endsAt") else { throw .invalidBody("`endsAt` is missing: say when the silence ends.") }
        let silence = Silence(matchers: matchers, startsAt: try time("startsAt") ?? now, endsAt: endsAt,
                              createdBy: try string("createdBy") ?? "", comment: try string("comment") ?? "")
        do throws(SilenceError) {
            try silence.validate(at: now)
        } catch {
            throw APIError(error)
        }
        let id = try string("id").flatMap { $0.isEmpty ? nil : SilenceID(rawValue: $0) }
        return (silence, id)
    }

    // MARK: GET /api/v2/silences

    /// Every silence, active ones first (soonest end first), then pending
    /// (soonest start first), then expired (latest end first), as
    /// Alertmanager orders them. A `filter` matcher picks the silences that
    /// have it among their own, name, operator and value alike, as
    /// Alertmanager 0.25 does: `amtool silence query 'a=~"b|c"'` finds the
    /// silence made with that matcher. Held against a silence's values as
    /// if they were labels, it found that one by `a="b|c"` and not by its
    /// own matcher.
    package func list(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let filters: [LabelMatcher]
        do throws(SilenceError) {
            filters = try AlertmanagerAPI.filters(request)
        } catch {
            throw APIError(error)
        }
        let now = Date()
        let silences = try await APIError.storeCall(await store.silences()).filter { silence in
            filters.allSatisfy { silence.matchers.contains($0) }
        }
        func rank(_ s: Silence) -> (Int, Date) {
            switch s.state(at: now) {
            case .active: (0, s.endsAt)
            case .pending: (1, s.startsAt)
            case .expired: (2, Date(timeIntervalSince1970: -s.endsAt.timeIntervalSince1970))
            }
        }
        let sorted = silences.sorted { rank($0) < rank($1) }
        return APIRepresentation.json(sorted.map { AlertmanagerRepresentation.Silence($0, at: now) })
    }
}
