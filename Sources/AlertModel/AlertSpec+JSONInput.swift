import FoundationEssentials

extension AlertSpec.Builder {
    /// Fills a builder from a decoded JSON object (as ``StrictJSON``
    /// gives it), recording a problem per wrong field instead of stopping at
    /// the first, so an API caller learns everything wrong in one reply.
    /// Unknown keys are problems too: a typo such as `severty` must not be
    /// silently dropped.
    ///
    /// The builder is changed in place rather than through its chaining
    /// setters: each of those copies the builder, which over thousands of
    /// keys made reading a body take time in the square of its size.
    public init(jsonObject: [String: Any]) {
        var b = AlertSpec.Builder()
        func typeError(_ field: String, _ expected: String) -> AlertSpecError {
            AlertSpecError(field: field, code: .invalidType, message: "`\(field)` must be \(expected).")
        }
        // Each key read once: known fields in the object's order, and the rest.
        var known: [(field: AlertSpec.CodingKeys, key: String, raw: Any)] = []
        known.reserveCapacity(jsonObject.count)
        var unknown: [String] = []
        for (key, raw) in jsonObject {
            if let field = AlertSpec.CodingKeys(rawValue: key) { known.append((field, key, raw)) } else { unknown.append(key) }
        }
        if !unknown.isEmpty {
            let fields = AlertSpec.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
            // Only the listed problems get a sentence; the rest are counted.
            for key in unknown.sorted().prefix(AlertSpecErrors.listLimit) {
                b.record(AlertSpecError(field: key, code: .unknownField, message: "`\(key)` is not an alert field; the fields are: \(fields)."))
            }
            b.omittedProblems += max(0, unknown.count - AlertSpecErrors.listLimit)
        }
        // Fields set in place: the builder's chained methods copy it whole for each.
        for (field, key, raw) in known where !StrictJSON.isNull(raw) {
            switch field {
            case .title:
                b.title = (raw as? String).map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .message:
                b.message = (raw as? String).map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .severity:
                if let s = raw as? String { b.parseSeverity(s, source: key) } else {
                    b.severity = .invalid(typeError(key, "one of \(Severity.spellings)"))
                }
            case .labels:
                guard let dict = raw as? [String: Any] else { b.record(typeError(key, "an object of string values")); break }
                // In the object's order: `build()` sorts them once it knows their number is within the limit.
                b.labels.reserveCapacity(dict.count)
                for (name, value) in dict {
                    if let v = value as? String { b.labels.append(LabelEntry(name: name, value: v)) } else {
                        b.record(typeError("labels.\(name)", "a string"))
                    }
                }
            case .confirm, .cancel:
                let parsed = Self.action(raw, field: key)
                if field == .confirm { b.confirm = parsed } else { b.cancel = parsed }
            case .dedupKey:
                b.dedupKey = (raw as? String).map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .expiresAfter:
                if let s = raw as? String {
                    b = b.expires(parsing: s, source: key)
                } else if let n = StrictJSON.wholeNumber(raw), n >= 0, n < 9_000_000_000_000_000 {
                    b = b.expires(after: .seconds(Int64(n)))
                } else {
                    b.expiresAfter = .invalid(typeError(key, "a whole number of seconds or a duration such as \"30m\""))
                }
            }
        }
        self = b
    }

    private static func action(_ raw: Any, field: String) -> PartialValue<AlertAction> {
        guard let obj = raw as? [String: Any] else {
            return .invalid(AlertSpecError(field: field, code: .invalidType,
                                           message: "`\(field)` must be an object with `label` and `url`."))
        }
        let unknown = obj.keys.filter { !["label", "url", "method"].contains($0) }.sorted()
        if let first = unknown.first {
            return .invalid(AlertSpecError(field: "\(field).\(first)", code: .unknownField,
                                           message: "`\(field).\(first)` is not an action field; the fields are: label, url, method."))
        }
        guard let label = obj["label"] as? String else {
            return .invalid(AlertSpecError(field: "\(field).label", code: .invalidType,
                                           message: "`\(field).label` must be a string naming what the action does."))
        }
        guard let url = obj["url"] as? String else {
            return .invalid(AlertSpecError(field: "\(field).url", code: .invalidType,
                                           message: "`\(field).url` must be a string with the handler's http(s) URL."))
        }
        var method = HTTPMethodName.post
        if let m = obj["method"], !StrictJSON.isNull(m) {
            guard let s = m as? String, let parsed = HTTPMethodName(rawValue: s.uppercased()) else {
                return .invalid(AlertSpecError(field: "\(field).method", code: .invalidHandlerMethod,
                                               message: "`\(field).method` must be one of \(HTTPMethodName.allCases.map(\.rawValue).joined(separator: ", "))."))
            }
            method = parsed
        }
        return .present(AlertAction(label: label, url: url, method: method))
    }
}
