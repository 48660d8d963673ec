import FoundationEssentials

/// An alert as a value: what to say, how urgent it is, how to group it, and
/// what a person may decide about it.
///
/// An `AlertSpec` exists only in a valid state: make one with
/// ``AlertSpec/Builder``, whose `build()` checks every field at once.
public struct AlertSpec: Sendable, Equatable, Hashable {
    /// A one-line headline. Required.
    public var title: String { fields.values.title }
    /// Free text, may span lines.
    public var message: String? { fields.values.message }
    /// Defaults to `.info`.
    public var severity: Severity { fields.values.severity }
    /// Prometheus-style labels used for routing and grouping.
    public var labels: [String: String] { fields.values.labels }
    /// The "yes" action, if any.
    public var confirm: AlertAction? { fields.values.confirm }
    /// The "no" action, if any. Also called when the alert expires.
    public var cancel: AlertAction? { fields.values.cancel }
    /// While an alert with this key is open, a new one with the same key is
    /// folded into it instead of being delivered again.
    public var dedupKey: String? { fields.values.dedupKey }
    /// How long the alert stays open before it expires on its own.
    public var expiresAfter: AlertDuration? { fields.values.expiresAfter }

    /// The values, in one box that never changes: a spec travels in every
    /// copy of its alert (intake, hand-off, claim, delivery), and copying a
    /// box is one retain where the dozen strings and the dictionary were a
    /// dozen.
    private let fields: Fields

    private final class Fields: Sendable {
        let values: Values

        init(_ values: Values) { self.values = values }
    }

    private struct Values: Sendable, Hashable {
        let title: String
        let message: String?
        let severity: Severity
        let labels: [String: String]
        let confirm: AlertAction?
        let cancel: AlertAction?
        let dedupKey: String?
        let expiresAfter: AlertDuration?
    }

    /// Only the builder calls this, after validation.
    package init(
        title: String, message: String?, severity: Severity, labels: [String: String],
        confirm: AlertAction?, cancel: AlertAction?, dedupKey: String?, expiresAfter: AlertDuration?
    ) {
        fields = Fields(Values(title: title, message: message, severity: severity, labels: labels,
                               confirm: confirm, cancel: cancel, dedupKey: dedupKey, expiresAfter: expiresAfter))
    }

    public static func == (a: AlertSpec, b: AlertSpec) -> Bool {
        a.fields === b.fields || a.fields.values == b.fields.values
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(fields.values) }

    /// The action of the given kind.
    public func action(_ kind: ActionKind) -> AlertAction? {
        switch kind {
        case .confirm: confirm
        case .cancel: cancel
        }
    }

    /// A builder holding this spec's values, for making a variant.
    public var builder: Builder {
        var b = Builder().title(title).severity(severity).labels(labels)
        if let message { b = b.message(message) }
        if let confirm { b = b.confirm(confirm.label, handler: confirm.url, method: confirm.method) }
        if let cancel { b = b.cancel(cancel.label, handler: cancel.url, method: cancel.method) }
        if let dedupKey { b = b.dedupKey(dedupKey) }
        if let expiresAfter { b = b.expires(after: expiresAfter) }
        return b
    }
}

extension AlertSpec: Codable {
    /// The JSON field names. They are part of the public API and never change.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case title, message, severity, labels, confirm, cancel
        case dedupKey = "dedup_key"
        case expiresAfter = "expires_after"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(message, forKey: .message)
        try c.encode(severity, forKey: .severity)
        try c.encode(labels, forKey: .labels)
        try c.encodeIfPresent(confirm, forKey: .confirm)
        try c.encodeIfPresent(cancel, forKey: .cancel)
        try c.encodeIfPresent(dedupKey, forKey: .dedupKey)
        try c.encodeIfPresent(expiresAfter, forKey: .expiresAfter)
    }

    /// Decoding goes through the builder too, so a decoded spec is as valid as
    /// a built one. Size limits are not applied here: they are the concern of
    /// whoever accepts input, and stored alerts must load whatever the current
    /// limits are.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var b = Builder()
        b = b.title(try c.decode(String.self, forKey: .title))
        if let m = try c.decodeIfPresent(String.self, forKey: .message) { b = b.message(m) }
        if let s = try c.decodeIfPresent(Severity.self, forKey: .severity) { b = b.severity(s) }
        if let l = try c.decodeIfPresent([String: String].self, forKey: .labels) { b = b.labels(l) }
        if let a = try c.decodeIfPresent(AlertAction.self, forKey: .confirm) {
            b = b.confirm(a.label, handler: a.url, method: a.method)
        }
        if let a = try c.decodeIfPresent(AlertAction.self, forKey: .cancel) {
            b = b.cancel(a.label, handler: a.url, method: a.method)
        }
        if let k = try c.decodeIfPresent(String.self, forKey: .dedupKey) { b = b.dedupKey(k) }
        if let e = try c.decodeIfPresent(AlertDuration.self, forKey: .expiresAfter) { b = b.expires(after: e) }
        switch b.build(limits: .permissive) {
        case .success(let spec): self = spec
        case .failure(let errors):
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: errors.description))
        }
    }
}

extension AlertSpec {
    /// Reads a spec the store wrote with `canonicalJSON`, without the
    /// builder's checks: only built specs are ever stored, and reading one
    /// back happens for every delivery and for every alert a listing shows.
    /// It reads the bytes in place with ``StrictJSON/Reader``: through
    /// `JSONDecoder`, decoding was most of the time an Alertmanager listing
    /// of 10,000 alerts took. Keys it does not know are passed over.
    package static func fromStorage(_ json: String) throws -> AlertSpec {
        var text = json
        return try text.withUTF8 { utf8 throws(StrictJSON.Failure) -> AlertSpec in
            var reader = StrictJSON.Reader(bytes: UnsafeRawBufferPointer(utf8))
            let spec = try stored(&reader)
            try reader.end()
            return spec
        }
    }

    /// ``fromStorage(_:)`` for the object `r` is at, within a larger text
    /// (a group snapshot's alerts).
    package static func stored(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> AlertSpec {
        guard try r.peek() == UInt8(ascii: "{") else { throw r.failure("A stored alert is a JSON object", at: r.offset) }
        var title: String?
        var message: String?
        var severity: Severity?
        var labels: [String: String] = [:]
        var confirm: AlertAction?
        var cancel: AlertAction?
        var dedupKey: String?
        var expiresAfter: AlertDuration?
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            if try r.skipNull() { return }
            switch key {
            case "title": title = try r.stringValue()
            case "message": message = try r.stringValue()
            case "severity": severity = try r.stringValue().flatMap(Severity.init(rawValue:))
            case "labels":
                try r.uniqueMembers { name, lr throws(StrictJSON.Failure) in labels[name] = try lr.stringValue() }
            case "confirm": confirm = try storedAction(&r)
            case "cancel": cancel = try storedAction(&r)
            case "dedup_key": dedupKey = try r.stringValue()
            case "expires_after": expiresAfter = StrictJSON.wholeNumber(try r.value()).map { AlertDuration(seconds: Int64($0)) }
            default: _ = try r.value()
            }
        }
        guard let title, let severity else { throw r.failure("A stored alert lacks its title or severity", at: r.offset) }
        return AlertSpec(title: title, message: message, severity: severity, labels: labels,
                         confirm: confirm, cancel: cancel, dedupKey: dedupKey, expiresAfter: expiresAfter)
    }

    private static func storedAction(_ r: inout StrictJSON.Reader) throws(StrictJSON.Failure) -> AlertAction? {
        var label: String?
        var url: String?
        var method = HTTPMethodName.post
        try r.uniqueMembers { key, r throws(StrictJSON.Failure) in
            switch key {
            case "label": label = try r.stringValue()
            case "url": url = try r.stringValue()
            case "method": method = try r.stringValue().flatMap(HTTPMethodName.init(rawValue:)) ?? .post
            default: _ = try r.value()
            }
        }
        guard let label, let url else { return nil }
        return AlertAction(label: label, url: url, method: method)
    }
}

extension AlertSpecLimits {
    /// Limits so wide that only structural rules apply; used when reading
    /// alerts back from storage.
    package static let permissive: AlertSpecLimits = {
        var l = AlertSpecLimits()
        l.maxTitleLength = .max
        l.maxMessageLength = .max
        l.maxLabels = .max
        l.maxLabelNameLength = .max
        l.maxLabelValueLength = .max
        l.maxActionLabelLength = .max
        l.maxURLLength = .max
        l.maxDedupKeyLength = .max
        l.maxExpiry = .seconds(.max)
        return l
    }()
}
