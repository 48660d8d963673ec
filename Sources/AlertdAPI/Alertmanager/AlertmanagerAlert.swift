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

    /// The label alertd keeps the generator URL in; it is not part of the
    /// fingerprint, and the Alertmanager API shows it as `generatorURL` again.
    package static let generatorURLLabel = "generator_url"

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
        "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ", ") + "}"
    }

    /// Reads one alert from decoded JSON; unknown keys are ignored, as
    /// Alertmanager ignores them. The error says what is wrong with it.
    package init(json value: Any) throws(AlertmanagerAlert.Problem) {
        guard let object = value as? [String: Any] else { throw Problem("is not an object") }
        func strings(_ key: String) throws(Problem) -> [String: String]? {
            guard let raw = object[key], !StrictJSON.isNull(raw) else { return nil }
            guard let dict = raw as? [String: Any] else { throw Problem("has `\(key)` that is not an object of strings") }
            var out: [String: String] = [:]
            for (name, v) in dict {
                guard let s = v as? String else { throw Problem("has `\(key).\(name)` that is not a string") }
                out[name] = s
            }
            return out
        }
        func time(_ key: String) throws(Problem) -> Date? {
            guard let raw = object[key], !StrictJSON.isNull(raw) else { return nil }
            guard let s = raw as? String, let date = RFC3339.parse(s) else {
                throw Problem("has `\(key)` that is not an RFC 3339 time such as 2026-05-05T12:00:00Z")
            }
            return RFC3339.isUnset(date) ? nil : date
        }
        guard let labels = try strings("labels"), !labels.isEmpty else { throw Problem("has no labels; an alert needs at least one, such as alertname") }
        self.labels = labels
        annotations = try strings("annotations") ?? [:]
        startsAt = try time("startsAt")
        endsAt = try time("endsAt")
        if let url = object["generatorURL"], !StrictJSON.isNull(url) {
            guard let s = url as? String else { throw Problem("has `generatorURL` that is not a string") }
            generatorURL = s.isEmpty ? nil : s
        }
        if let raw = object["status"], !StrictJSON.isNull(raw) {
            guard let s = raw as? String, let status = Status(rawValue: s) else { throw Problem("has `status` that is neither firing nor resolved") }
            self.status = status
        }
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
        let fallback = labels["alertname"] ?? "Alert \(fingerprint)"
        var title = Self.fitted(annotations["summary"] ?? fallback, keepingNewlines: false, limit: limits.maxTitleLength)
        if title.isEmpty { title = Self.fitted(fallback, keepingNewlines: false, limit: limits.maxTitleLength) }
        var builder = AlertSpec.Builder()
            .title(title)
            .severity(Severity(alertmanagerLabel: labels["severity"]))
            .dedupKey(fingerprint.description)
        var labels = self.labels
        if let generatorURL, labels[Self.generatorURLLabel] == nil, generatorURL.count <= limits.maxLabelValueLength {
            labels[Self.generatorURLLabel] = generatorURL
        }
        builder = builder.labels(labels)
        var parts: [String] = []
        if let description = annotations["description"], !description.isEmpty { parts.append(description) }
        let others = annotations.filter { $0.key != "summary" && $0.key != "description" }.sorted { $0.key < $1.key }
        if !others.isEmpty { parts.append(others.map { "\($0.key): \($0.value)" }.joined(separator: "\n")) }
        let message = Self.fitted(parts.joined(separator: "\n\n"), keepingNewlines: true, limit: limits.maxMessageLength)
        if !message.isEmpty { builder = builder.message(message) }
        return builder.build(limits: limits)
    }

    /// `text` without control characters (but newlines and tabs, when
    /// kept), trimmed, and cut to `limit` characters with an ellipsis.
    private static func fitted(_ text: String, keepingNewlines: Bool, limit: Int) -> String {
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch s.value {
            case 0x0A where keepingNewlines, 0x09 where keepingNewlines: out.append(s)
            case 0x00...0x1F, 0x7F...0x9F, 0x202D, 0x202E: out.append(" ")
            default: out.append(s)
            }
        }
        let clean = String(out).trimmingWhitespace()
        return clean.count <= limit ? clean : String(clean.prefix(max(0, limit - 1))) + "…"
    }
}
