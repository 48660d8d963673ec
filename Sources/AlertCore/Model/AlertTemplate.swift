import Foundation

/// A named recipe for a kind of alert: the builder's director. It holds
/// defaults with `{placeholders}` and fills a builder's gaps with them, so a
/// cron job can say `--template disk_full --set host=db1` instead of spelling
/// out the whole alert every time.
public struct AlertTemplate: Sendable, Equatable {
    public var name: String
    public var title: String?
    public var message: String?
    public var severity: String?
    public var labels: [String: String]
    public var confirm: AlertAction?
    public var cancel: AlertAction?
    public var dedupKey: String?
    public var expiresAfter: String?

    public init(
        name: String, title: String? = nil, message: String? = nil, severity: String? = nil,
        labels: [String: String] = [:], confirm: AlertAction? = nil, cancel: AlertAction? = nil,
        dedupKey: String? = nil, expiresAfter: String? = nil
    ) {
        self.name = name
        self.title = title
        self.message = message
        self.severity = severity
        self.labels = labels
        self.confirm = confirm
        self.cancel = cancel
        self.dedupKey = dedupKey
        self.expiresAfter = expiresAfter
    }

    /// Every placeholder name the template uses, sorted.
    public var placeholders: [String] {
        var texts = [title, message, severity, dedupKey, expiresAfter].compactMap { $0 }
        texts += labels.values
        for action in [confirm, cancel].compactMap({ $0 }) { texts += [action.label, action.url] }
        return Array(Set(texts.flatMap(Self.placeholderNames(in:)))).sorted()
    }

    /// Fills the fields the builder does not have yet, substituting `values`
    /// into the placeholders. Fields already set on the builder win, so
    /// explicit options override the template. Placeholders without a value
    /// become one `missing_template_values` problem that names them all.
    public func fill(_ builder: AlertSpec.Builder, values: [String: String]) -> AlertSpec.Builder {
        let missing = placeholders.filter { values[$0] == nil }
        if !missing.isEmpty {
            return builder.problem(AlertSpecError(
                field: "template", code: .missingTemplateValues,
                message: "Template `\(name)` needs values for: \(missing.joined(separator: ", ")). Give each one as name=value (alertctl: --set \(missing[0])=…)."))
        }
        func sub(_ text: String) -> String { Self.substitute(text, values: values) }
        var b = builder
        if !b.title.isGiven, let title { b = b.title(sub(title)) }
        if !b.message.isGiven, let message { b = b.message(sub(message)) }
        if !b.severity.isGiven, let severity { b = b.severity(parsing: sub(severity), source: "template \(name): severity") }
        let given = Set(b.labels.map(\.name))
        for (k, v) in labels.sorted(by: { $0.key < $1.key }) where !given.contains(k) { b = b.label(k, sub(v)) }
        if !b.confirm.isGiven, let confirm { b = b.confirm(sub(confirm.label), handler: sub(confirm.url), method: confirm.method) }
        if !b.cancel.isGiven, let cancel { b = b.cancel(sub(cancel.label), handler: sub(cancel.url), method: cancel.method) }
        if !b.dedupKey.isGiven, let dedupKey { b = b.dedupKey(sub(dedupKey)) }
        if !b.expiresAfter.isGiven, let expiresAfter { b = b.expires(parsing: sub(expiresAfter), source: "template \(name): expires_after") }
        return b
    }

    static func placeholderNames(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) {
                names.append(String(name))
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
        return names
    }

    static func substitute(_ text: String, values: [String: String]) -> String {
        var out = text
        for name in placeholderNames(in: text) {
            if let v = values[name] { out = out.replacingOccurrences(of: "{\(name)}", with: v) }
        }
        return out
    }
}
