import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdHTTP
import AlertdStore

/// Alertmanager's alert API as Prometheus and amtool use it, so
/// `alerting.alertmanagers` in prometheus.yml can point at alertd:
/// `POST` and `GET /api/v2/alerts`, `GET /api/v2/status`, and the probes
/// `/-/healthy` and `/-/ready`. Errors are Alertmanager's (a JSON string).
public struct AlertmanagerAPI: Sendable {
    package let intake: AlertIntake
    package let store: any AlertStore
    package let metrics: DaemonMetrics
    package let dispatcherRunning: @Sendable () async -> Bool
    /// `/-/ready` asks the store through it, within its deadline.
    private let probe: StoreProbe
    /// Why the store refuses writes, while it does: not ready then either,
    /// though reads work (a full disk, a read-only database), or a load
    /// balancer would keep sending alerts that all get 503.
    private let writeFailure: @Sendable () -> StoreError?
    /// The regex steps one listing's `filter` matchers may take (``FilterWork``).
    package var filterStepLimit = FilterWork.limit
    /// Listings build through it, a few at once (``ListingGate``).
    private let listings: ListingGate
    /// When this alertd started: an alert's `endsAt` is when the clock will
    /// resolve it (``StoreRules/shown(_:resendGraceFrom:)``).
    private let startedAt: Date

    public init(intake: AlertIntake, store: any AlertStore, metrics: DaemonMetrics,
                dispatcherRunning: @escaping @Sendable () async -> Bool, listings: ListingGate = ListingGate(), probe: StoreProbe? = nil,
                writeFailure: @escaping @Sendable () -> StoreError? = { nil }, startedAt: Date = .distantPast) {
        self.startedAt = startedAt
        self.intake = intake
        self.writeFailure = writeFailure
        self.store = store
        self.probe = probe ?? StoreProbe(store: store)
        self.metrics = metrics
        self.dispatcherRunning = dispatcherRunning
        self.listings = listings
    }

    public func register(in router: inout APIRouter) {
        router.add("POST", "/api/v2/alerts", access: .token(.send), errors: .alertmanager,
                   onRefusal: { metrics.rejected($0, count: $1) }) { req throws(APIError) in
            try await postAlerts(req.http)
        }
        router.add("GET", "/api/v2/alerts", access: .token(.read), errors: .alertmanager) { req throws(APIError) in try await getAlerts(req.http) }
        router.add("GET", "/api/v2/alerts/groups", access: .token(.read), errors: .alertmanager) { req throws(APIError) in
            try await getGroups(req.http)
        }
        router.add("GET", "/api/v2/receivers", access: .token(.read), errors: .alertmanager) { _ in getReceivers() }
        router.add("GET", "/api/v2/status", access: .token(.read), errors: .alertmanager) { _ in
            APIRepresentation.json(AlertmanagerRepresentation.Status(uptime: metrics.started))
        }
        // Probes hold no token, as for /v1/health.
        router.add("GET", "/-/healthy", access: .public, errors: .alertmanager) { _ in .text("OK") }
        router.add("GET", "/-/ready", access: .public, errors: .alertmanager) { _ in
            let store = HealthAPI.storeState(readable: (try? await probe.counts().get()) != nil, writeFailure: writeFailure())
            let running = await dispatcherRunning()
            return store == "ok" && running ? .text("OK") : .text(status: 503, "alertd is not ready: store \(store), dispatcher \(running ? "running" : "stopped")")
        }
    }

    // MARK: POST /api/v2/alerts

    /// An array of postable alerts. Valid ones are taken even when others
    /// are not; the answer is then a 400 naming those refused.
    package func postAlerts(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let maxBatch = intake.current.maxBatch
        guard let read = try APIRequestBody.read(request, { reader throws(StrictJSON.Failure) in
            try AlertmanagerIntake.read(&reader, withStatus: false, atMost: maxBatch)
        }) else {
            throw .invalidBody("The body must be a JSON array of alerts, each with labels, annotations, startsAt, endsAt and generatorURL.")
        }
        guard read.count <= maxBatch else {
            throw APIError(status: 413, code: "batch_too_large",
                           message: "The array holds \(read.count) alerts; the limit is \(maxBatch). Send them in smaller batches.")
        }
        _ = try await AlertmanagerIntake(intake: intake, store: store, metrics: metrics, door: .alertmanagerAPI).take(read: read.items)
        return HTTPResponse(status: 200)
    }

    // MARK: GET /api/v2/alerts

    /// alertd's open alerts as Alertmanager shows its own: `filter`
    /// matchers, `active`, `silenced`, `inhibited` and `unprocessed`
    /// (alertd processes at once), and `receiver`, a regex over the
    /// presenters an alert's route picks. An alert an open alert inhibits
    /// names that alert's fingerprint in `inhibitedBy`, as Alertmanager does.
    package func getAlerts(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        try await listings.through(costly: Self.isCostly(request)) { () throws(APIError) in
            await APIRepresentation.jsonArray(try await listed(request).map(\.shown))
        }
    }

    /// Whether the listing holds alerts against regexes (a `filter` with
    /// `=~` or `!~`, or `receiver`): those may run for seconds, and take
    /// their turns apart from the others (``ListingGate``). Told from the
    /// text, not compiled twice; a value that only spells `=~` is counted
    /// costly, which costs it nothing but its turn.
    private static func isCostly(_ request: HTTPRequest) -> Bool {
        request.queryValue("receiver") != nil || request.queryValues("filter").contains { $0.contains("=~") || $0.contains("!~") }
    }

    /// The alerts `GET /api/v2/alerts` lists for `request`, each with the
    /// routing plan it was shown by.
    private func listed(_ request: HTTPRequest) async throws(APIError)
        -> [(plan: AlertRouter.Plan, shown: AlertmanagerRepresentation.Alert)] {
        var flags: [String: Bool] = [:]
        for name in ["active", "silenced", "inhibited", "unprocessed"] {
            guard let raw = request.queryValue(name) else { flags[name] = true; continue }
            guard let value = Bool(raw.lowercased()) else { throw .invalidQuery("`\(name)` must be true or false, got `\(raw)`.") }
            flags[name] = value
        }
        let filters: [LabelMatcher]
        let receiver: MatcherRegex?
        do throws(SilenceError) {
            filters = try Self.filters(request)
            receiver = try request.queryValue("receiver").map { raw throws(SilenceError) in try MatcherRegex(raw) }
        } catch {
            throw APIError(error)
        }
        let now = Date()
        let silenced = SilenceIndex(try await APIError.storeCall(await store.silences()), at: now)
        let settings = intake.current
        let router = settings.router
        // Only the alerts the filters' plain `name="value"` matchers let
        // through are read, and the inhibition sources apart; unfiltered,
        // every open alert is read, the sources among them.
        var work = FilterWork(limit: filterStepLimit)
        let open = try await openAlerts(labels: filters.compactMap(Self.storeFilter)) { alert throws(APIError) in
            try await work.allMatch(filters, AlertmanagerView(alert).labels)
        }
        let inhibitions: Inhibitions = if settings.inhibitRules.isEmpty {
            .none
        } else if filters.isEmpty {
            Inhibitions(rules: settings.inhibitRules, openAlerts: open.sorted(by: Alert.oldestFirst))
        } else {
            try await inhibitions(under: settings.inhibitRules)
        }
        var out: [(plan: AlertRouter.Plan, shown: AlertmanagerRepresentation.Alert)] = []
        for (n, alert) in open.enumerated() {
            // Thousands of alerts would hold a thread of the cooperative
            // pool for tens of milliseconds, with every request behind it.
            if n > 0, n.isMultiple(of: APIRepresentation.elementsAtOnce) {
                await Task.yield()
                try APIError.checkClientStayed()
            }
            let view = AlertmanagerView(StoreRules.shown(alert, resendGraceFrom: startedAt))
            let plan = router.route(alert.spec)
            let receivers = AlertRouter.presenters(of: plan)
            if let receiver, !receivers.contains(where: receiver.wholeMatch) { continue }
            let silencedBy = await work.silencing(alert.spec.labels, in: silenced).map(\.id.rawValue)
            let inhibitedBy = inhibitions.source(inhibiting: alert).map { [AlertmanagerView($0).fingerprint] } ?? []
            let suppressed = !silencedBy.isEmpty || !inhibitedBy.isEmpty
            // Alertmanager's filter: each flag set to false drops the alerts in that state.
            if !suppressed && !flags["active"]! || !silencedBy.isEmpty && !flags["silenced"]!
                || !inhibitedBy.isEmpty && !flags["inhibited"]! { continue }
            out.append((plan, AlertmanagerRepresentation.Alert(
                labels: view.labels, annotations: view.annotations, startsAt: view.startsAt, endsAt: view.endsAt,
                // As Alertmanager's: the last time a sender posted the alert, its re-sends included.
                updatedAt: max(alert.updatedAt, alert.repeats?.lastSeenAt ?? alert.updatedAt), fingerprint: view.fingerprint,
                receivers: receivers.map { .init(name: $0) },
                status: .init(state: suppressed ? .suppressed : .active, silencedBy: silencedBy, inhibitedBy: inhibitedBy),
                generatorURL: view.generatorURL)))
        }
        return out
    }

    // MARK: GET /api/v2/alerts/groups

    /// The listed alerts in Alertmanager's groups, which dashboards such as
    /// karma read: one per presenter and group, a grouped route's alerts by
    /// the values of its `group_by` labels, every other alert a group of
    /// its own (alertd sends it alone, as Alertmanager's `group_by: ['...']`
    /// does). Takes `getAlerts`'s parameters; `receiver` picks groups.
    package func getGroups(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        try await listings.through(costly: Self.isCostly(request)) { () throws(APIError) in try await groups(request) }
    }

    private func groups(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let receiver: MatcherRegex?
        do throws(SilenceError) {
            receiver = try request.queryValue("receiver").map { raw throws(SilenceError) in try MatcherRegex(raw) }
        } catch {
            throw APIError(error)
        }
        var groups: [AlertmanagerRepresentation.AlertGroup] = []
        var index: [String: Int] = [:]
        for (n, (plan, shown)) in try await listed(request).enumerated() {
            if n > 0, n.isMultiple(of: APIRepresentation.elementsAtOnce) { await Task.yield() }
            var memberships = plan.presenters.map { (presenter: $0, labels: shown.labels, key: "alert:" + shown.fingerprint) }
            for group in plan.groups {
                let labels = Dictionary(group.labels.map { ($0.name, $0.value) }) { a, _ in a }
                memberships += group.settings.presenters.map { (presenter: $0, labels: labels, key: "group:\(group.id)") }
            }
            for m in memberships where receiver?.wholeMatch(m.presenter) ?? true {
                let key = m.presenter + "\u{0}" + m.key
                if let i = index[key] {
                    groups[i].alerts.append(shown)
                } else {
                    index[key] = groups.count
                    groups.append(.init(labels: m.labels, receiver: .init(name: m.presenter), alerts: [shown]))
                }
            }
        }
        return await AlertmanagerRepresentation.jsonGroups(groups)
    }

    // MARK: GET /api/v2/receivers

    /// Every presenter a route names, as Alertmanager lists its receivers.
    package func getReceivers() -> HTTPResponse {
        let router = intake.current.router
        var names: [String] = []
        for route in router.routes + [router.defaultRoute] {
            for name in route.presenters where !names.contains(name) { names.append(name) }
        }
        return APIRepresentation.json(names.map { AlertmanagerRepresentation.Alert.Receiver(name: $0) })
    }

    /// A matcher the store can apply itself (``LabelMatcher/requiredLabel``),
    /// unless it names the generator URL, which is not among the labels shown.
    private static func storeFilter(_ matcher: LabelMatcher) -> (String, String)? {
        guard let label = matcher.requiredLabel, label.name != AlertmanagerView.generatorURLLabel else { return nil }
        return label
    }

    /// The inhibitions in force under `rules`, from the open alerts that
    /// may be their sources: for each rule, those its plain `name="value"`
    /// source matchers let through, read by the store; every open alert
    /// only for a rule without one. A listing filtered to a few alerts no
    /// longer reads all of them because a rule exists.
    private func inhibitions(under rules: [InhibitRule]) async throws(APIError) -> Inhibitions {
        var candidates: [Alert] = []
        var seen = Set<AlertID>()
        for rule in rules {
            let plain = rule.sourceMatchers.compactMap(Self.storeFilter)
            guard !plain.isEmpty else {
                return Inhibitions(rules: rules, openAlerts: try await openAlerts(labels: []) { _ in true })
            }
            for alert in try await openAlerts(labels: plain, keep: { rule.isSource($0.spec.labels) }) where seen.insert(alert.id).inserted {
                candidates.append(alert)
            }
        }
        // One order whichever rule found a source first, as ties between sources are broken by it.
        return Inhibitions(rules: rules, openAlerts: candidates.sorted(by: Alert.oldestFirst))
    }

    /// Every open alert with these labels that `keep` keeps, page by page.
    /// All of them, as Alertmanager answers: an answer cut short at some
    /// count would look whole to its reader.
    private func openAlerts(labels: [(String, String)], keep: (Alert) async throws(APIError) -> Bool) async throws(APIError) -> [Alert] {
        var query = AlertQuery(state: .open, labels: labels, limit: 1_000)
        var alerts: [Alert] = []
        while true {
            let page = try await APIError.storeCall(await store.alerts(matching: query))
            for alert in page.alerts where try await keep(alert) { alerts.append(alert) }
            guard let next = page.nextCursor else { return alerts }
            query.before = next
        }
    }

    /// The most `filter` matchers a request may carry: each is held against
    /// every alert or silence listed, so a query of hundreds made one
    /// request cost minutes of CPU.
    static let maxFilters = 32

    /// The request's `filter` matchers, as Alertmanager reads them.
    static func filters(_ request: HTTPRequest) throws(SilenceError) -> [LabelMatcher] {
        let raw = request.queryValues("filter")
        // Alertmanager takes braces, and several matchers in one `filter`.
        var matchers: [LabelMatcher] = []
        for text in raw where matchers.count <= maxFilters { matchers += try LabelMatcher.list(parsing: text) }
        guard matchers.count <= maxFilters else {
            throw SilenceError(.invalidMatcher, "The request has more than \(maxFilters) `filter` matchers; send at most \(maxFilters).")
        }
        return matchers
    }
}
