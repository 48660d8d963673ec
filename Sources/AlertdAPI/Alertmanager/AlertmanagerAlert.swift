import FoundationEssentials
import AlertModel

/// One alert as Alertmanager's API takes it (a postable alert: labels,
/// annotations, startsAt, endsAt, generatorURL) or its webhook sends it
/// (the same, with a status), and how it becomes an alertd alert.
package struct AlertmanagerAlert: Sendable, Equatable {
    /// A webhook alert's `status`.
    package enum Status: String, Sendable {
        case firing, resolved
    }

    package var labels: [String: String]
    package var annotations: [String: String] = [:]
    package var startsAt: Date?
    /// Nil when unset (absent, or Go's zero time).
    package var endsAt: Date?
    package var generatorURL: String?
    package var status: Status?

    package init(labels: [String: String], annotations: [String: String] = [:], startsAt: Date? = nil, endsAt: Date? = nil,
                 generatorURL: String? = nil, status: Status? = nil) {
        self.labels = labels
        self.annotations = annotations
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.generatorURL = generatorURL
        self.status = status
    }

    /// The dedup key of the alertd alert it becomes.
    package var fingerprint: LabelFingerprint { LabelFingerprint(labels) }

    /// Resolved when its sender says so or its end has passed: then it
    /// closes the open alert with its fingerprint instead of opening one.
    package func isResolved(at now: Date) -> Bool {
        status == .resolved || endsAt.map { $0 <= now } == true
    }

    /// `{alertname="DiskFull", instance="db1"}`, for messages.
    package var labelsDescription: String {
        // Quoted back to the sender: what the policy refuses is spelled, not sent raw into a terminal.
        let text = AlertmanagerView.text(of: Dictionary(labels.map { (TextPolicy.spellingRefused(in: $0.key), TextPolicy.spellingRefused(in: $0.value)) }) { a, _ in a })
        // Enough to find the alert by: a refused label of 900 kB came back whole in the answer.
        return text.count <= Self.describedLength ? text : String(text.prefix(Self.describedLength)) + "…"
    }

    /// The most of an alert's labels an error quotes, in characters.
    static let describedLength = 300

    /// Reads one alert (one element of an array) from `reader`; unknown
    /// keys are ignored, as Alertmanager ignores them. `status` is read
    /// only `withStatus` (a webhook's alerts): Alertmanager's API has none,
    /// and a postable alert ends by its `endsAt` alone. What is wrong with
    /// the alert comes back as its problem, the first in the order labels,
    /// annotations, startsAt, endsAt, generatorURL, status; a body that is
    /// not JSON throws.
    package static func reading(_ reader: inout StrictJSON.Reader, withStatus: Bool) throws(StrictJSON.Failure) -> Result<AlertmanagerAlert, Problem> {
        guard try reader.peek() == UInt8(ascii: "{") else {
            _ = try reader.value()
            return .failure(Problem("is not an object"))
        }
        var labels: Result<[String: String]?, Problem> = .success(nil)
        var annotations: Result<[String: String]?, Problem> = .success(nil)
        var startsAt: Result<Date?, Problem> = .success(nil)
        var endsAt: Result<Date?, Problem> = .success(nil)
        var generatorURL: Result<String?, Problem> = .success(nil)
        var status: Result<Status?, Problem> = .success(nil)
        try reader.uniqueMembers { key, r throws(StrictJSON.Failure) in
            switch key {
            case "labels": labels = try strings(&r, key)
            case "annotations": annotations = try strings(&r, key)
            case "startsAt": startsAt = try time(&r, key)
            case "endsAt": endsAt = try time(&r, key)
            case "generatorURL":
                if try r.skipNull() {
                    break
                } else if let s = try r.stringValue() {
                    generatorURL = .success(s.isEmpty ? nil : s)
                } else {
                    generatorURL = .failure(Problem("has `generatorURL` that is not a string"))
                }
            case "status" where withStatus:
                if try r.skipNull() {
                    break
                } else if let s = try r.stringValue(), let given = Status(rawValue: s) {
                    status = .success(given)
                } else {
                    status = .failure(Problem("has `status` that is neither firing nor resolved"))
                }
            default:
                _ = try r.value()
            }
        }
        do throws(Problem) {
            // A label with an empty value is no label, as Alertmanager drops it
            // before the fingerprint: kept, the fingerprint was another.
            guard let labels = try labels.get()?.filter({ !$0.value.isEmpty }), !labels.isEmpty else {
                throw Problem("has no labels; an alert needs at least one, such as alertname")
            }
            let (starts, ends) = (try startsAt.get(), try endsAt.get())
            // As Alertmanager refuses it ("start time must be before end time"); Go's zero time is no time.
            if let starts, let ends, !RFC3339.isUnset(starts), !RFC3339.isUnset(ends), ends < starts {
                throw Problem("has `endsAt` before `startsAt`: an alert cannot end before it starts")
            }
            return .success(AlertmanagerAlert(labels: labels, annotations: try annotations.get() ?? [:], startsAt: starts,
                                              endsAt: ends, generatorURL: try generatorURL.get(), status: try status.get()))
        } catch {
            return .failure(error)
        }
    }

    /// An object of strings (`labels`, `annotations`); nil for null.
    private static func strings(_ r: inout StrictJSON.Reader, _ key: String) throws(StrictJSON.Failure) -> Result<[String: String]?, Problem> {
        if try r.skipNull() { return .success(nil) }
        switch try r.peek() {
        case UInt8(ascii: "{"):
            // Room for a usual label set at once: grown from empty, four
            // labels took three tables and 1.2 k instructions a label.
            var out = [String: String](minimumCapacity: 8)
            var problem: Problem?
            try r.uniqueMembers { name, v throws(StrictJSON.Failure) in
                if let s = try v.stringValue() {
                    out[name] = s
                } else {
                    problem = problem ?? Problem("has `\(key).\(name)` that is not a string")
                }
            }
            if let problem { return .failure(problem) }
            return .success(out)
        default:
            _ = try r.value()
            return .failure(Problem("has `\(key)` that is not an object of strings"))
        }
    }

    /// An RFC 3339 time; nil for null, or for Go's zero time (unset).
    private static func time(_ r: inout StrictJSON.Reader, _ key: String) throws(StrictJSON.Failure) -> Result<Date?, Problem> {
        if try r.skipNull() { return .success(nil) }
        guard let s = try r.stringValue(), let date = RFC3339.parse(s) else {
            return .failure(Problem("has `\(key)` that is not an RFC 3339 time such as 2026-05-05T12:00:00Z"))
        }
        return .success(RFC3339.isUnset(date) ? nil : date)
    }

    /// Why an alert could not be read.
    package struct Problem: Error, Sendable {
        package let message: String
        package init(_ message: String) { self.message = message }
    }

    /// The alertd alert: title from the `summary` annotation (else the
    /// alertname), message from `description` with the other annotations
    /// after it, severity from the `severity` label, every label, the
    /// generator URL as the `generator_url` label when it fits, and the
    /// fingerprint as the dedup key. Title and message are machine-made, so
    /// they are made to fit (control characters become spaces, overlong
    /// text is cut) rather than refused; labels are the alert's identity
    /// and are checked as any alert's are.
    package func spec(limits: AlertSpecLimits) -> Result<AlertSpec, AlertSpecErrors> {
        // An alertname that shows nothing is none too, or the alert would be refused for a missing title.
        let fallback = labels["alertname"].flatMap { TextPolicy.showsNothing($0) ? nil : $0 } ?? "Alert \(fingerprint)"
        // A summary that shows nothing is none: made to fit, it was a title of U+FFFD.
        let summary = annotations["summary"].flatMap { TextPolicy.showsNothing($0) ? nil : $0 }
        var title = Self.fitted(summary ?? fallback, keepingNewlines: false, limit: limits.maxTitleLength)
        if title.isEmpty { title = Self.fitted(fallback, keepingNewlines: false, limit: limits.maxTitleLength) }
        // Set in place: each chained setter copies the builder whole.
        var builder = AlertSpec.Builder()
        builder.title = .present(title)
        builder.severity = .present(Severity(alertmanagerLabel: labels["severity"]))
        builder.dedupKey = .present(fingerprint.description)
        var labels = self.labels
        // Only while it fits: Prometheus sends a generator URL with every
        // alert, and an alert at the label limit must not be refused for it.
        if let generatorURL, labels[AlertmanagerView.generatorURLLabel] == nil, labels.count < limits.maxLabels,
           generatorURL.unicodeScalars.count <= limits.maxLabelValueLength,
           TextPolicy.firstRefused(in: generatorURL, .line) == nil {
            labels[AlertmanagerView.generatorURLLabel] = generatorURL
        }
        builder = builder.labels(labels)
        var parts: [String] = []
        if let description = annotations["description"], !description.isEmpty { parts.append(description) }
        let others = annotations.filter { $0.key != "summary" && $0.key != "description" }.sorted { $0.key < $1.key }
        if !others.isEmpty { parts.append(others.map { "\($0.key): \($0.value)" }.joined(separator: "\n")) }
        let message = Self.fitted(parts.joined(separator: "\n\n"), keepingNewlines: true, limit: limits.maxMessageLength)
        if !message.isEmpty { builder.message = .present(message) }
        let built = builder.build(limits: limits)
        // Taken, the sender's label would pass for the generator URL in every
        // Alertmanager listing, and its fingerprint there would lose it.
        guard self.labels[AlertmanagerView.generatorURLLabel] != nil else { return built }
        let reserved = AlertSpecError(
            field: "labels.\(AlertmanagerView.generatorURLLabel)", code: .reservedLabelName,
            message: "alertd keeps an alert's generatorURL in the label `\(AlertmanagerView.generatorURLLabel)`; rename this label "
                + "(in Prometheus, with alert_relabel_configs).")
        switch built {
        case .success: return .failure(AlertSpecErrors([reserved]))
        case .failure(let errors): return .failure(AlertSpecErrors([reserved] + errors.errors, omitted: errors.omitted))
        }
    }

    /// `text` without control characters (but newlines and tabs, when
    /// kept), trimmed, cut to `limit` Unicode scalars with an ellipsis (the
    /// unit the limits count in), and with what else the text policy
    /// refuses (bidirectional controls, invisible characters) replaced by
    /// U+FFFD.
    private static func fitted(_ text: String, keepingNewlines: Bool, limit: Int) -> String {
        // The usual text, printable ASCII with nothing to trim and within the
        // limit, is already fitted: no scalar-by-scalar copy for it.
        var text = text
        let plain = text.withUTF8 { utf8 in
            guard let first = utf8.first, let last = utf8.last, first > 0x20, last > 0x20, utf8.count <= limit else { return false }
            return utf8.allSatisfy { (0x20...0x7E).contains($0) || (keepingNewlines && ($0 == 0x0A || $0 == 0x09)) }
        }
        if plain { return text }
        // Other text with none of what is blanked below (most non-ASCII
        // text) is not copied a scalar at a time either: that copy was a
        // sixth of taking alerts with 4 KB annotations in other scripts.
        let blanked = text.withUTF8 { utf8 in
            utf8.indices.contains { i in
                switch utf8[i] {
                case 0x0A, 0x09: !keepingNewlines
                case 0x00...0x1F, 0x7F: true
                // U+0080-U+009F, and U+202D and U+202E, as UTF-8.
                case 0xC2: i + 1 < utf8.count && (0x80...0x9F).contains(utf8[i + 1])
                case 0xE2: i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xAD || utf8[i + 2] == 0xAE)
                default: false
                }
            }
        }
        var out = String.UnicodeScalarView()
        if blanked {
            for s in text.unicodeScalars {
                switch s.value {
                case 0x0A where keepingNewlines, 0x09 where keepingNewlines: out.append(s)
                case 0x00...0x1F, 0x7F...0x9F, 0x202D, 0x202E: out.append(" ")
                default: out.append(s)
                }
            }
        }
        let clean = (blanked ? String(out) : text).trimmingWhitespace()
        let cut = clean.unicodeScalars.count <= limit ? clean
            : String(String.UnicodeScalarView(clean.unicodeScalars.prefix(max(0, limit - 1)))) + "…"
        return TextPolicy.replacingRefused(in: cut, keepingNewlines ? .multiline : .line)
    }
}

/// One element of an array of alerts as read: the alert, or what is wrong with it.
package typealias AlertmanagerAlertItem = Result<AlertmanagerAlert, AlertmanagerAlert.Problem>
