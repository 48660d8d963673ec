import FoundationEssentials

extension AlertSpec.Builder {
    /// Validates every field and returns the spec, or every problem found.
    public func build(limits: AlertSpecLimits = .default) -> Result<AlertSpec, AlertSpecErrors> {
        var errors = problems
        var check = Validator(limits: limits)

        // A template that could not be read or found was to give the title:
        // its own problem says what to fix, "needs a title" would mislead.
        let templateFailed = problems.contains { $0.field == "template" || $0.field == "templates" }
        let title = templateFailed && self.title == .missing ? nil : check.title(self.title)
        let message = check.message(self.message)
        let severity: Severity
        switch self.severity {
        case .missing: severity = .info
        case .present(let s): severity = s
        case .invalid(let e): check.errors.append(e); severity = .info
        }
        let labels = check.labels(self.labels)
        let confirm = check.action(self.confirm, field: "confirm")
        let cancel = check.action(self.cancel, field: "cancel")
        if let confirm, let cancel, confirm.label == cancel.label, !confirm.label.isEmpty {
            check.errors.append(AlertSpecError(
                field: "cancel.label", code: .duplicateActionLabel,
                message: "The confirm and cancel actions are both labelled \"\(cancel.label)\"; give them different labels so a person can tell them apart."))
        }
        let dedupKey = check.dedupKey(self.dedupKey)
        let expires = check.expiry(self.expiresAfter)

        errors += check.errors
        guard errors.isEmpty, let title else { return .failure(AlertSpecErrors(errors, omitted: omittedProblems)) }
        return .success(AlertSpec(
            title: title, message: message, severity: severity, labels: labels,
            confirm: confirm, cancel: cancel, dedupKey: dedupKey, expiresAfter: expires))
    }
}

extension AlertSpec {
    /// The Prometheus rule for label names: `[a-zA-Z_][a-zA-Z0-9_]*`.
    public static func isValidLabelName(_ name: String) -> Bool { Validator.isValidLabelName(name) }

    /// What is wrong with `name` as a label name under `limits`, if anything.
    package static func labelNameProblem(_ name: String, limits: AlertSpecLimits = .default) -> AlertSpecError? {
        Validator.labelNameProblem(name, limits: limits)
    }
}

/// The rules, one method per field. Collects errors instead of stopping at the first.
private struct Validator {
    package let limits: AlertSpecLimits
    package var errors: [AlertSpecError] = []

    package mutating func title(_ value: PartialValue<String>) -> String? {
        guard case .present(let raw) = value else {
            if case .invalid(let e) = value { errors.append(e) } else {
                errors.append(.init(field: "title", code: .missingTitle,
                                    message: "An alert needs a title: say in a few words what happened, e.g. \"Disk full on db1\"."))
            }
            return nil
        }
        let title = raw.trimmingSpaces()
        // Spaces of other widths and invisible characters alone look empty too.
        if title.isEmpty || TextPolicy.showsNothing(title) {
            errors.append(.init(field: "title", code: .missingTitle,
                                message: "The title is empty: say in a few words what happened, e.g. \"Disk full on db1\"."))
            return nil
        }
        if Self.longer(title, than: limits.maxTitleLength) {
            errors.append(.init(field: "title", code: .titleTooLong,
                                message: "The title has \(title.unicodeScalars.count) characters; \(limits.limitText(limits.maxTitleLength, setting: "max_title_length", defaultLimit: AlertSpecLimits.default.maxTitleLength)). Move the details into the message."))
        }
        if let problem = TextPolicy.problem(field: "title", in: title, .line, what: "The title") { errors.append(problem) }
        return title
    }

    package mutating func message(_ value: PartialValue<String>) -> String? {
        switch value {
        case .missing: return nil
        case .invalid(let e): errors.append(e); return nil
        case .present(let message):
            if Self.longer(message, than: limits.maxMessageLength) {
                errors.append(.init(field: "message", code: .messageTooLong,
                                    message: "The message has \(message.unicodeScalars.count) characters; \(limits.limitText(limits.maxMessageLength, setting: "max_message_length", defaultLimit: AlertSpecLimits.default.maxMessageLength)). Link to the details instead of pasting them."))
            }
            if let problem = TextPolicy.problem(field: "message", in: message, .multiline, what: "The message") { errors.append(problem) }
            return message.isEmpty ? nil : message
        }
    }

    package mutating func labels(_ entries: [AlertSpec.Builder.LabelEntry]) -> [String: String] {
        if entries.count > limits.maxLabels {
            errors.append(.init(field: "labels", code: .tooManyLabels,
                                message: "The alert has \(entries.count) labels; \(limits.limitText(limits.maxLabels, setting: "max_labels", defaultLimit: AlertSpecLimits.default.maxLabels)). Keep the labels you route and group on, and move the rest into the message."))
            // Checking each of thousands of labels would only bury this one
            // problem under more, at a cost that grows with what is refused anyway.
            return [:]
        }
        // Room for all at once: growing a dictionary rehashes it. Made with
        // its room: `reserveCapacity` looks metadata up at run time each time.
        var labels = [String: String](minimumCapacity: entries.count)
        // By name, so problems come out in the same order however the labels were given.
        for entry in entries.sorted(by: { $0.name < $1.name }) {
            // Named only for a problem: most labels have none.
            var field: String { "labels.\(entry.name)" }
            if let problem = Self.labelNameProblem(entry.name, limits: limits) { errors.append(problem) }
            if Self.longer(entry.value, than: limits.maxLabelValueLength) {
                errors.append(.init(field: field, code: .labelValueTooLong,
                                    message: "The value of label `\(entry.name)` has \(entry.value.unicodeScalars.count) characters; the limit is \(limits.maxLabelValueLength)."))
            }
            if let problem = TextPolicy.problem(field: field, in: entry.value, .line, what: "The value of label `\(entry.name)`") {
                errors.append(problem)
            }
            // One lookup both stores the value and finds one given before.
            if labels.updateValue(entry.value, forKey: entry.name) != nil {
                errors.append(.init(field: field, code: .duplicateLabel,
                                    message: "The label `\(entry.name)` is given more than once; give each label one value."))
            }
        }
        return labels
    }

    package mutating func action(_ value: PartialValue<AlertAction>, field: String) -> AlertAction? {
        switch value {
        case .missing: return nil
        case .invalid(let e): errors.append(e); return nil
        case .present(let action):
            let label = action.label.trimmingSpaces()
            if label.isEmpty {
                errors.append(.init(field: "\(field).label", code: .emptyActionLabel,
                                    message: "The \(field) action has no label; name what it does, e.g. \"Restart\"."))
            } else if Self.longer(label, than: limits.maxActionLabelLength) {
                errors.append(.init(field: "\(field).label", code: .actionLabelTooLong,
                                    message: "The \(field) action's label has \(label.unicodeScalars.count) characters; the limit is \(limits.maxActionLabelLength), so it fits on a button."))
            }
            if let problem = TextPolicy.problem(field: "\(field).label", in: label, .line, what: "The \(field) action's label") {
                errors.append(problem)
            }
            checkHandlerURL(action.url, field: "\(field).url")
            return AlertAction(label: label, url: action.url, method: action.method)
        }
    }

    private mutating func checkHandlerURL(_ url: String, field: String) {
        if url.utf8.count > limits.maxURLLength {
            errors.append(.init(field: field, code: .handlerURLTooLong,
                                message: "The handler URL is \(url.utf8.count) bytes long; the limit is \(limits.maxURLLength)."))
            return
        }
        guard !url.isEmpty else {
            errors.append(.init(field: field, code: .invalidHandlerURL,
                                message: "The handler URL is empty; give the full address to call, e.g. https://ops.example/restart."))
            return
        }
        guard TextPolicy.firstRefused(in: url, .line) == nil, !url.contains(" "),
              let parts = URLComponents(string: url), let scheme = parts.scheme else {
            errors.append(.init(field: field, code: .invalidHandlerURL,
                                message: "`\(TextPolicy.spellingRefused(in: url))` is not a valid URL; give the full address to call, e.g. https://ops.example/restart."))
            return
        }
        guard ["http", "https"].contains(scheme.lowercased()) else {
            errors.append(.init(field: field, code: .handlerSchemeNotAllowed,
                                message: "The handler URL uses `\(scheme):`; only http and https handlers can be called."))
            return
        }
        guard let host = parts.host, !host.isEmpty else {
            errors.append(.init(field: field, code: .invalidHandlerURL,
                                message: "`\(TextPolicy.spellingRefused(in: url))` has no host; give the full address to call, e.g. https://ops.example/restart."))
            return
        }
    }

    package mutating func dedupKey(_ value: PartialValue<String>) -> String? {
        switch value {
        case .missing: return nil
        case .invalid(let e): errors.append(e); return nil
        case .present(let key):
            if key.isEmpty {
                errors.append(.init(field: "dedup_key", code: .emptyDedupKey,
                                    message: "The dedup key is empty; leave it out or give a key such as `disk-full:db1`."))
            } else if Self.longer(key, than: limits.maxDedupKeyLength) {
                errors.append(.init(field: "dedup_key", code: .dedupKeyTooLong,
                                    message: "The dedup key has \(key.unicodeScalars.count) characters; the limit is \(limits.maxDedupKeyLength)."))
            }
            if let problem = TextPolicy.problem(field: "dedup_key", in: key, .identifier, what: "The dedup key") { errors.append(problem) }
            return key
        }
    }

    package mutating func expiry(_ value: PartialValue<AlertDuration>) -> AlertDuration? {
        switch value {
        case .missing: return nil
        case .invalid(let e): errors.append(e); return nil
        case .present(let d):
            if d.seconds <= 0 {
                errors.append(.init(field: "expires_after", code: .invalidExpiry,
                                    message: "The expiry must be longer than zero; leave it out for an alert that stays open until decided."))
            } else if d > limits.maxExpiry {
                errors.append(.init(field: "expires_after", code: .invalidExpiry,
                                    message: "The expiry \(d) is longer than the limit of \(limits.maxExpiry)."))
            }
            return d
        }
    }

    /// Whether `text` has more than `limit` characters, counted as Unicode
    /// scalars: one Character (grapheme cluster) can hold any number of
    /// combining marks (`a` and 100,000 U+0301 is one), so a limit by
    /// Characters bounds nothing. A text with no more bytes than the limit
    /// cannot have more scalars, so most texts are never walked.
    private static func longer(_ text: String, than limit: Int) -> Bool {
        text.utf8.count > limit && text.unicodeScalars.count > limit
    }

    /// What is wrong with `name` as a label name, if anything.
    package static func labelNameProblem(_ name: String, limits: AlertSpecLimits) -> AlertSpecError? {
        // Named only when there is a problem: this runs for every label of every alert.
        var field: String { "labels.\(name)" }
        if !isValidLabelName(name) {
            return .init(field: field, code: .invalidLabelName,
                         message: "`\(TextPolicy.spellingRefused(in: name))` is not a valid label name: use letters, digits and underscores, not starting with a digit (e.g. `host`, `env_name`).")
        } else if name.hasPrefix("__") {
            return .init(field: field, code: .reservedLabelName, message: "Label names starting with `__` are reserved; rename `\(name)`.")
        } else if longer(name, than: limits.maxLabelNameLength) {
            return .init(field: field, code: .invalidLabelName,
                         message: "The label name `\(name.prefix(20))…` has \(name.unicodeScalars.count) characters; the limit is \(limits.maxLabelNameLength).")
        }
        return nil
    }

    package static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
        guard isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) }
    }
}
