import FoundationEssentials

extension AlertSpec.Builder {
    /// Fills a builder from the JSON object that `reader` is at, straight
    /// from the bytes (no dictionary or `Any` for the fields it knows),
    /// recording a problem per wrong field instead of stopping at the
    /// first, so an API caller learns everything wrong in one reply.
    /// Unknown keys are problems too: a typo such as `severty` must not be
    /// silently dropped. Keys in `passing` are the caller's, not alert
    /// fields: their values come back as read, in `passed`. A body that is
    /// not JSON throws, whatever was read before. The reader must be at an
    /// object (`peek()` is `{`).
    ///
    /// The builder is changed in place rather than through its chaining
    /// setters: each of those copies the builder, which over thousands of
    /// keys made reading a body take time in the square of its size.
    package static func reading(_ reader: inout StrictJSON.Reader, passing: [String] = []) throws(StrictJSON.Failure)
        -> (builder: AlertSpec.Builder, passed: [String: Any]) {
        let first = try reader.peek()
        precondition(first == UInt8(ascii: "{"), "AlertSpec.Builder.reading: the reader is not at an object")
        precondition(passing.count <= 16, "AlertSpec.Builder.reading: at most 16 passed keys")
        var b = AlertSpec.Builder()
        var passed: [String: Any] = [:]
        func typeError(_ field: String, _ expected: String) -> AlertSpecError {
            AlertSpecError(field: field, code: .invalidType, message: "`\(field)` must be \(expected).")
        }
        // The keys seen, to refuse one given twice: a bit for each field and
        // passed key, and the unknown ones, which are rare, in a set.
        var seen: UInt32 = 0
        var unknownKeys = StrictJSON.KeySet()
        var unknown: [String] = []
        // Unknown keys are listed first, and they are only all known at the
        // end: what the fields themselves record waits until then.
        var recorded: [AlertSpecError] = []
        try reader.members { key, r throws(StrictJSON.Failure) in
            let passedIndex = passing.firstIndex(of: key)
            let field = passedIndex == nil ? AlertSpec.CodingKeys(rawValue: key) : nil
            let bit: UInt32 = if let passedIndex { 1 << (16 + passedIndex) } else if let field { 1 << field.position } else { 0 }
            guard bit == 0 ? unknownKeys.insert(key) : seen & bit == 0 else {
                _ = try r.value()
                return false
            }
            seen |= bit
            if passedIndex != nil {
                passed[key] = try r.value()
                return true
            }
            guard let field else {
                _ = try r.value()
                unknown.append(key)
                return true
            }
            // `null` is the field left out.
            if try r.skipNull() { return true }
            switch field {
            case .title:
                b.title = try r.stringValue().map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .message:
                b.message = try r.stringValue().map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .severity:
                if let s = try r.stringValue() { b.parseSeverity(s, source: key) } else {
                    b.severity = .invalid(typeError(key, "one of \(Severity.spellings)"))
                }
            case .labels:
                guard try r.peek() == UInt8(ascii: "{") else {
                    _ = try r.value()
                    recorded.append(typeError(key, "an object of string values"))
                    break
                }
                // In the object's order: `build()` sorts them once it knows their number is within the limit.
                // Room for a typical label set at once, not a doubling per label.
                b.labels.reserveCapacity(b.labels.count + 8)
                try r.uniqueMembers { name, lr throws(StrictJSON.Failure) in
                    if let v = try lr.stringValue() { b.labels.append(LabelEntry(name: name, value: v)) } else {
                        recorded.append(typeError("labels.\(name)", "a string"))
                    }
                }
            case .confirm, .cancel:
                let parsed = Self.action(try r.value(), field: key)
                if field == .confirm { b.confirm = parsed } else { b.cancel = parsed }
            case .dedupKey:
                b.dedupKey = try r.stringValue().map { .present($0) } ?? .invalid(typeError(key, "a string"))
            case .expiresAfter:
                if try r.peek() == UInt8(ascii: "\"") {
                    b = b.expires(parsing: try r.string(), source: key)
                } else if let n = StrictJSON.wholeNumber(try r.value()), n >= 0, n < 9_000_000_000_000_000 {
                    b = b.expires(after: .seconds(Int64(n)))
                } else {
                    b.expiresAfter = .invalid(typeError(key, "a whole number of seconds or a duration such as \"30m\""))
                }
            }
            return true
        }
        if !unknown.isEmpty {
            let fields = AlertSpec.CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
            // Only the listed problems get a sentence; the rest are counted.
            for key in unknown.sorted().prefix(AlertSpecErrors.listLimit) {
                b.record(AlertSpecError(field: key, code: .unknownField, message: "`\(key)` is not an alert field; the fields are: \(fields)."))
            }
            b.omittedProblems += max(0, unknown.count - AlertSpecErrors.listLimit)
        }
        for problem in recorded { b.record(problem) }
        return (b, passed)
    }

    /// Reads a builder from one JSON text holding an alert object, as
    /// ``reading(_:passing:)`` does.
    package init(json text: String) throws(StrictJSON.Failure) {
        self = try StrictJSON.read(text) { reader throws(StrictJSON.Failure) in
            guard try reader.peek() == UInt8(ascii: "{") else { throw StrictJSON.Failure(description: "An alert must be a JSON object.") }
            return try Self.reading(&reader).builder
        }
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

extension AlertSpec.CodingKeys {
    /// The field's place among the fields, for a bit of its own.
    fileprivate var position: Int {
        switch self {
        case .title: 0
        case .message: 1
        case .severity: 2
        case .labels: 3
        case .confirm: 4
        case .cancel: 5
        case .dedupKey: 6
        case .expiresAfter: 7
        }
    }
}
