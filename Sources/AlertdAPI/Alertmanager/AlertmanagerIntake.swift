import FoundationEssentials
import AlertModel
import AlertdDelivery
import AlertdStore

/// Alerts from Prometheus or Alertmanager into alertd, the same way for
/// both front doors: a firing alert is submitted (and folds into the open
/// alert with its fingerprint, so re-sends create nothing), a resolved one
/// resolves the open alert with its fingerprint. A firing alert's `endsAt`
/// (Prometheus sends now plus a few evaluation intervals) is when it
/// resolves by itself: each re-send moves it on, and maintenance resolves
/// the alert once its sender has stopped re-sending it.
package struct AlertmanagerIntake: Sendable {
    package let intake: AlertIntake
    package let store: any AlertStore
    package let metrics: DaemonMetrics
    package let door: FrontDoor

    /// What a batch came to.
    package struct Outcome: Sendable, Equatable {
        package var created = 0
        package var deduplicated = 0
        package var resolved = 0
        /// One sentence per alert that could not be taken, naming it.
        package var problems: [String] = []
    }

    /// Reads each element of a JSON array at `reader` as an alert
    /// (``AlertmanagerAlert/reading(_:withStatus:)``), the first `atMost`
    /// of them; the rest are only counted, since the batch will be refused:
    /// 350,000 `{}` in a megabyte, each read and found wanting, cost 0.2 s
    /// of CPU a request. Nil when the value there is not an array.
    package static func read(_ reader: inout StrictJSON.Reader, withStatus: Bool, atMost: Int = .max) throws(StrictJSON.Failure)
        -> (items: [AlertmanagerAlertItem], count: Int)? {
        guard try reader.peek() == UInt8(ascii: "[") else {
            _ = try reader.value()
            return nil
        }
        var items: [AlertmanagerAlertItem] = []
        var count = 0
        try reader.elements { item throws(StrictJSON.Failure) in
            count += 1
            if count > atMost {
                _ = try item.value()
            } else {
                items.append(try AlertmanagerAlert.reading(&item, withStatus: withStatus))
            }
        }
        return (items, count)
    }

    /// Takes the alerts read from an array, in order. A batch with a
    /// refused alert is answered with the refusal, naming each; the others
    /// are taken all the same, as Alertmanager does.
    package func take(read items: [AlertmanagerAlertItem]) async throws(APIError) -> Outcome {
        var alerts: [AlertmanagerAlert] = []
        var problems: [String] = []
        for (i, item) in items.enumerated() {
            switch item {
            case .success(let alert): alerts.append(alert)
            case .failure(let problem): problems.append("alert \(i) \(problem.message)")
            }
        }
        let outcome = try await take(alerts, problems: problems)
        guard outcome.problems.isEmpty else { throw Self.refusal(outcome, of: items.count) }
        return outcome
    }

    /// How long after it was last sent an alert posted to Alertmanager's API
    /// without `endsAt` resolves (`amtool alert add` without `--end`, a
    /// script), as Alertmanager's `resolve_timeout`, by default: such an
    /// alert stayed open for good. A webhook's firing alerts carry none
    /// and are resolved by a later notification, so they stay open.
    package static let resolveTimeout: Duration = .seconds(300)

    /// Takes the alerts in order; problems with single alerts are
    /// reported, and the others are taken all the same, as Alertmanager does.
    package func take(_ alerts: [AlertmanagerAlert], problems: [String] = [], now: Date = Date()) async throws(APIError) -> Outcome {
        var outcome = Outcome(problems: problems)
        var firing: [AlertSpec] = []
        var ends: [Date?] = []
        var resolving: [LabelFingerprint] = []
        let limits = intake.current.limits
        // One alert twice in a batch: the later says what stands, as in
        // Alertmanager. Firing ones were taken first, then the resolved,
        // so a batch that ended firing left the alert resolved.
        // Each fingerprint once: it hashes the sorted labels.
        let fingerprints = alerts.map(\.fingerprint)
        var last: [LabelFingerprint: Int] = [:]
        for (i, fingerprint) in fingerprints.enumerated() { last[fingerprint] = i }
        for (i, alert) in alerts.enumerated() where last[fingerprints[i]] == i {
            if alert.isResolved(at: now) {
                resolving.append(fingerprints[i])
                continue
            }
            switch alert.spec(limits: limits) {
            case .success(let spec):
                firing.append(spec)
                ends.append(alert.endsAt ?? (door == .alertmanagerAPI ? now.addingTimeInterval(Self.resolveTimeout.seconds) : nil))
            case .failure(let errors):
                outcome.problems.append("\(alert.labelsDescription): \(errors.errors.map(\.message).joined(separator: " "))")
            }
        }
        if !firing.isEmpty {
            let results = try await APIError.storeCall(await intake.submit(firing, at: now, resolvesAt: ends, refreshing: true))
            metrics.accepted(results, via: door)
            outcome.deduplicated = results.filter(\.deduplicated).count
            outcome.created = results.count - outcome.deduplicated
        }
        let decision = AlertDecision(outcome: .resolved, actor: door.actor, at: now, comment: "resolved by its sender")
        var seen = Set<String>()
        let unique = resolving.map(\.description).filter { seen.insert($0).inserted }
        // A slice a transaction: one look-up and one write each, 64 at a
        // time, took a tenth more CPU (50,000 resolved into 50 groups:
        // 5.5-7.3 s, Alertmanager 2.3 s); all of a request's in one would
        // hold intake back behind the writer.
        for start in stride(from: 0, to: unique.count, by: Self.resolvesAtOnce) {
            let keys = Array(unique[start..<min(start + Self.resolvesAtOnce, unique.count)])
            for case .decided(let alert, _)? in try await APIError.storeCall(await store.decideOpen(dedupKeys: keys, decision)) {
                metrics.decided(alert.state)
                outcome.resolved += 1
            }
        }
        return outcome
    }

    /// How many resolves one transaction takes.
    static let resolvesAtOnce = 128

    /// 400 `invalid_alert` naming the first few alerts refused, once the
    /// others are stored: Alertmanager's answer to a partly bad batch.
    package static func refusal(_ outcome: Outcome, of total: Int) -> APIError {
        let shown = outcome.problems.prefix(5).joined(separator: "; ")
        let more = outcome.problems.count > 5 ? "; and \(outcome.problems.count - 5) more" : ""
        let list = shown + more
        let count = outcome.problems.count
        let what = count >= total ? (total == 1 ? "The alert was refused" : "All \(total) alerts were refused")
            : "\(count) of \(total) alerts were refused (the others were taken)"
        var error = APIError(status: 400, code: "invalid_alert", message: "\(what): \(list)\(list.hasSuffix(".") ? "" : ".")")
        error.refusedSubmissions = outcome.problems.count
        return error
    }
}
