import FoundationEssentials
import AlertModel
import AlertdHTTP

/// What `alertctl show` prints: the alert's fields (with who decided, when
/// and why), its message, and how each presenter's delivery stands.
///
/// ```
/// Disk full on db1
///   id:       0197a4c2-5b1e-7c3d-8e9f-0123456789ab
///   state:    confirmed
///   severity: critical
///   created:  2025-06-01 12:00:00 UTC
///   updated:  2025-06-01 12:03:10 UTC
///   decided:  confirmed by uid:1000 at 2025-06-01 12:03:10 UTC
///   comment:  expanding now
///   labels:   host=db1, team=ops
///   repeated: 3 times, last seen 2025-06-01 12:02:40 UTC
///   confirm:  Expand -> POST https://ops.example/expand
///
///   /var at 97%
///
/// Deliveries:
///   hook  delivered  1 attempt   delivered 2025-06-01 12:00:01 UTC
///   log   pending    2 attempts  next attempt 2025-06-01 12:00:05 UTC
///         last error: connection refused by 127.0.0.1:9
/// ```
package enum AlertDetailView {
    package static func text(_ alert: APIRepresentation.AlertDetail) -> String {
        let spec = alert.spec
        var fields: [(String, String)] = [
            ("id", alert.id.rawValue),
            ("state", alert.state.rawValue),
            ("severity", spec.severity.rawValue),
            ("created", UTCTimestamp.readable(alert.createdAt)),
        ]
        if alert.updatedAt != alert.createdAt { fields.append(("updated", UTCTimestamp.readable(alert.updatedAt))) }
        if let decision = alert.decision {
            fields.append(("decided", decision.summaryText))
            if let comment = decision.comment, !comment.isEmpty { fields.append(("comment", comment)) }
        }
        if !spec.labels.isEmpty {
            fields.append(("labels", spec.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")))
        }
        if let key = spec.dedupKey { fields.append(("dedup key", key)) }
        if let repeats = alert.repeats {
            let times = repeats.count == 1 ? "once" : "\(repeats.count) times"
            fields.append(("repeated", "\(times), last seen \(UTCTimestamp.readable(repeats.lastSeenAt))"))
        }
        if let expires = spec.expiresAfter {
            let at = alert.createdAt.addingTimeInterval(Double(expires.seconds))
            fields.append(("expires", "after \(expires) (\(UTCTimestamp.readable(at)))"))
        }
        // Prometheus's alerts end by themselves unless sent again; `show` said nothing of it.
        if alert.state == .open, let at = alert.resolvesAt {
            fields.append(("resolves", "\(UTCTimestamp.readable(at)) unless sent again"))
        }
        if let confirm = spec.confirm { fields.append(("confirm", action(confirm))) }
        if let cancel = spec.cancel { fields.append(("cancel", action(cancel))) }

        let labelWidth = fields.map { $0.0.count }.max() ?? 0
        var lines = [AlertListTable.singleLine(spec.title)]
        lines += fields.map { "  " + TextWrapper.pad($0.0 + ":", to: labelWidth + 2) + AlertListTable.singleLine($0.1) }
        if let message = spec.message, !message.isEmpty {
            lines.append("")
            // As written: a message is often a command's output, laid out in columns.
            lines += message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
                // An empty line stays empty, not two spaces a pager shows as trailing.
                $0.isEmpty ? "" : "  " + AlertListTable.singleLine(TextWrapper.expandingTabs(String($0)))
            }
        }
        if let deliveries = alert.deliveries {
            lines.append("")
            lines += deliveryLines(deliveries, groups: alert.groups ?? [], activeSilences: Set(alert.silencedBy ?? []), closed: alert.state.isFinal)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func action(_ action: AlertAction) -> String {
        "\(action.label) -> \(action.method.rawValue) \(action.url)"
    }

    /// The deliveries as a table; `groups` are the alert's open groups, whose
    /// notifications tell of it when a grouped route gave it none of its own;
    /// `activeSilences` the silences that hold it now; `closed` whether the
    /// alert is closed, when its groups are no longer known.
    package static func deliveryLines(_ deliveries: [DeliveryRecord], groups: [AlertGroupID] = [], activeSilences: Set<SilenceID> = [],
                                      closed: Bool = false, now: Date = Date()) -> [String] {
        guard !deliveries.isEmpty else {
            guard groups.isEmpty else {
                let names = groups.map(\.rawValue).joined(separator: ", ")
                return ["Deliveries: none of its own; it is told of in the notifications of group \(names) ('alertctl groups')"]
            }
            // A closed alert has left its groups, so an alert told of in a group's
            // notifications cannot be told from one no route gave a presenter.
            return closed
                ? ["Deliveries: none of its own (no presenter's route matched, or a grouped route told of it in its group's notifications)"]
                : ["Deliveries: none (no presenter's route matched)"]
        }
        let rows = deliveries.map { d -> [String] in
            var when = ""
            if let at = d.deliveredAt, d.state == .delivered {
                when = "delivered \(UTCTimestamp.readable(at))"
            } else if let holder = d.silencedBy, d.state == .pending, let at = d.nextAttemptAt, at > now,
                      holder.isInhibition ? d.attempts == 0 : activeSilences.contains(holder) {
                // Held, not failing: say by what, and when it is looked at again. A delivery
                // keeps the holder that last held it, so a silence counts only while active,
                // and an inhibition only for a delivery never tried (later, a retry's wait
                // cannot be told from a hold).
                when = holder.isInhibition
                    ? "held: inhibited by alert \(holder.rawValue.dropFirst(SilenceID.inhibitionPrefix.count)); checked again \(UTCTimestamp.readable(at))"
                    : "held by silence \(holder.rawValue); checked again \(UTCTimestamp.readable(at))"
            } else if let holder = d.silencedBy, d.state == .silenced {
                when = "withheld by silence \(holder.rawValue)"
            } else if let at = d.nextAttemptAt, d.state == .pending, at <= now {
                // Due and not started: its presenter's slots or rate limit hold it in the queue.
                when = "due since \(UTCTimestamp.readable(at)); waiting for its presenter (its rate limit, its concurrency, or, while it fails, one delivery at a time)"
            } else if let at = d.nextAttemptAt, d.state == .pending {
                when = "next attempt \(UTCTimestamp.readable(at))"
            } else if d.state == .dead, d.lastError == d.presenterNotConfiguredError {
                // A replay now would only end dead again: the dispatcher's words for a presenter a reload took out.
                when = "gave up \(UTCTimestamp.readable(d.updatedAt)); once its presenter is configured again, 'alertctl replay' retries it"
            } else if d.state == .dead, d.followUpOf != nil, d.lastError == d.presenterSendsNoFollowUpsError {
                // Likewise: replayed, it ends dead again until follow-ups are on.
                when = "gave up \(UTCTimestamp.readable(d.updatedAt)); once its presenter sends follow-ups again (\"follow_ups\": true), 'alertctl replay' retries it"
            } else if d.state == .dead {
                when = "gave up \(UTCTimestamp.readable(d.updatedAt)); 'alertctl replay' retries it"
            }
            // A follow-up is told apart from the alert delivery to the same presenter.
            let name = d.followUpOf == nil ? d.presenter : "\(d.presenter) (follow-up)"
            return [name, d.state.rawValue, "\(d.attempts) attempt\(d.attempts == 1 ? "" : "s")", when]
        }
        var widths = [0, 0, 0]
        for row in rows {
            for i in 0..<3 { widths[i] = max(widths[i], TextWrapper.displayWidth(row[i])) }
        }
        var lines = ["Deliveries:"]
        for (row, delivery) in zip(rows, deliveries) {
            let cells = (0..<3).map { TextWrapper.pad(AlertListTable.singleLine(row[$0]), to: widths[$0]) } + [AlertListTable.singleLine(row[3])]
            var line = "  " + cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
            if let error = delivery.lastError, delivery.state != .delivered {
                lines.append("  " + String(repeating: " ", count: widths[0] + 2) + "last error: " + AlertListTable.singleLine(error))
            }
        }
        return lines
    }
}
