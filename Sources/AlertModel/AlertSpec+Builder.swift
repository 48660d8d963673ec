import FoundationEssentials

extension AlertSpec {
    /// Assembles an ``AlertSpec`` step by step and validates it as a whole.
    ///
    /// Every setter returns a new builder, so calls chain:
    /// ```swift
    /// let spec = try AlertSpec.Builder()
    ///     .title("Disk full")
    ///     .severity(.critical)
    ///     .confirm("Expand", handler: "https://ops.example/expand")
    ///     .build().get()
    /// ```
    /// Raw input from a command line or a JSON body goes in through the
    /// `parsing:` setters, which remember what was typed so an error can quote it.
    public struct Builder: Sendable, Equatable {
        package var title: PartialValue<String> = .missing
        package var message: PartialValue<String> = .missing
        package var severity: PartialValue<Severity> = .missing
        package var labels: [LabelEntry] = []
        package var confirm: PartialValue<AlertAction> = .missing
        package var cancel: PartialValue<AlertAction> = .missing
        package var dedupKey: PartialValue<String> = .missing
        package var expiresAfter: PartialValue<AlertDuration> = .missing
        /// Problems found before `build()`: unparseable labels, a template's
        /// missing placeholders, unknown JSON fields.
        package var problems: [AlertSpecError] = []
        /// Problems past `AlertSpecErrors.listLimit`, counted rather than kept.
        package var omittedProblems = 0

        package struct LabelEntry: Sendable, Equatable {
            package var name: String
            package var value: String
        }

        public init() {}

        // MARK: Typed setters

        public func title(_ title: String) -> Builder { with { $0.title = .present(title) } }

        public func message(_ message: String) -> Builder { with { $0.message = .present(message) } }

        public func severity(_ severity: Severity) -> Builder { with { $0.severity = .present(severity) } }

        /// Adds one label. Giving the same name twice is an error at `build()`.
        public func label(_ name: String, _ value: String) -> Builder {
            with { $0.labels.append(LabelEntry(name: name, value: value)) }
        }

        /// Adds labels; `build()` checks them in name order.
        public func labels(_ labels: [String: String]) -> Builder {
            with { b in
                for (name, value) in labels {
                    b.labels.append(LabelEntry(name: name, value: value))
                }
            }
        }

        public func confirm(_ label: String, handler url: String, method: HTTPMethodName = .post) -> Builder {
            with { $0.confirm = .present(AlertAction(label: label, url: url, method: method)) }
        }

        public func cancel(_ label: String, handler url: String, method: HTTPMethodName = .post) -> Builder {
            with { $0.cancel = .present(AlertAction(label: label, url: url, method: method)) }
        }

        public func dedupKey(_ key: String) -> Builder { with { $0.dedupKey = .present(key) } }

        public func expires(after duration: AlertDuration) -> Builder {
            with { $0.expiresAfter = .present(duration) }
        }

        /// Records a problem found outside the builder (by a template, or by
        /// the JSON reader); `build()` reports it with the rest.
        public func problem(_ error: AlertSpecError) -> Builder { with { $0.record(error) } }

        /// Keeps a problem in place; past the list limit it is only counted,
        /// so a body with thousands of bad keys costs no more than its size.
        package mutating func record(_ error: AlertSpecError) {
            if problems.count < AlertSpecErrors.listLimit { problems.append(error) } else { omittedProblems += 1 }
        }

        // MARK: Raw-input setters

        /// Reads a severity name; `source` is how the person gave it (`--severity`).
        public func severity(parsing raw: String, source: String = "severity") -> Builder {
            with { $0.parseSeverity(raw, source: source) }
        }

        /// ``severity(parsing:source:)`` in place, without a copy of the builder.
        package mutating func parseSeverity(_ raw: String, source: String = "severity") {
            if let s = Severity(rawValue: raw.lowercased()) {
                severity = .present(s)
            } else {
                severity = .invalid(AlertSpecError(
                    field: "severity", code: .invalidSeverity,
                    message: "`\(source)` is not a severity: `\(TextPolicy.spellingRefused(in: raw))`. Use one of: \(Severity.spellings)."))
            }
        }

        /// Reads `name=value`.
        public func label(parsing raw: String, source: String = "label") -> Builder {
            guard let eq = raw.firstIndex(of: "=") else {
                return problem(AlertSpecError(
                    field: "labels", code: .invalidLabel,
                    message: "`\(source)` needs the form name=value, got `\(TextPolicy.spellingRefused(in: raw))`."))
            }
            return label(String(raw[..<eq]), String(raw[raw.index(after: eq)...]))
        }

        /// Reads `Label=URL` for the confirm action.
        public func confirm(parsing raw: String, source: String = "confirm") -> Builder {
            with { $0.confirm = Builder.parseAction(raw, field: "confirm", source: source) }
        }

        /// Reads `Label=URL` for the cancel action.
        public func cancel(parsing raw: String, source: String = "cancel") -> Builder {
            with { $0.cancel = Builder.parseAction(raw, field: "cancel", source: source) }
        }

        /// Reads a duration such as `30m`, `1h30m`, `2d` or a number of seconds.
        public func expires(parsing raw: String, source: String = "expires_after") -> Builder {
            if let d = AlertDuration(parsing: raw) { return expires(after: d) }
            return with {
                $0.expiresAfter = .invalid(AlertSpecError(
                    field: "expires_after", code: .invalidExpiry,
                    message: "`\(source)` is not a duration: `\(TextPolicy.spellingRefused(in: raw))`. \(AlertDuration.spellingHint)"))
            }
        }

        private static func parseAction(_ raw: String, field: String, source: String) -> PartialValue<AlertAction> {
            // The label may not contain '=', the URL may (query strings), so split on the first;
            // a "label" holding "://" is a URL given without one (`https://h/x?a=b`).
            guard let eq = raw.firstIndex(of: "="), !raw[..<eq].contains("://") else {
                return .invalid(AlertSpecError(
                    field: field, code: .invalidAction,
                    message: "`\(source)` needs the form Label=URL, e.g. \"Restart=https://ops.example/restart\"; got `\(TextPolicy.spellingRefused(in: raw))`."))
            }
            return .present(AlertAction(label: String(raw[..<eq]), url: String(raw[raw.index(after: eq)...])))
        }

        private func with(_ change: (inout Builder) -> Void) -> Builder {
            var copy = self
            change(&copy)
            return copy
        }
    }
}
