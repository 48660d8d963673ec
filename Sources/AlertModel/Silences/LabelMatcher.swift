/// One condition on an alert's labels, with Alertmanager's semantics: a
/// label the alert does not have counts as the empty value, and a regex must
/// match the whole value (``MatcherRegex``).
public struct LabelMatcher: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let op: MatchOperator
    /// The value compared, or the regex's pattern.
    public let value: String
    private let regex: MatcherRegex?

    /// The compiled regex of `=~` and `!~`.
    var compiled: MatcherRegex? { regex }

    /// The label pair every label set this matcher matches has:
    /// `name="value"` with a value (an empty one also matches a set without
    /// the label). A store can select by it before the matcher is applied.
    public var requiredLabel: (name: String, value: String)? {
        op == .equal && !value.isEmpty ? (name, value) : nil
    }

    /// Checks the label name and compiles a regex value.
    public init(name: String, _ op: MatchOperator, _ value: String) throws(SilenceError) {
        guard AlertSpec.isValidLabelName(name) else {
            throw SilenceError(.invalidMatcher,
                               "`\(name)` is not a label name: use letters, digits and underscores, not starting with a digit (e.g. `alertname`).")
        }
        self.name = name
        self.op = op
        self.value = value
        regex = op.isRegex ? try MatcherRegex(value) : nil
    }

    /// Whether an alert with these labels satisfies the matcher.
    public func matches(_ labels: [String: String]) -> Bool {
        var work = 0
        return matches(labels, work: &work)
    }

    /// ``matches(_:)``, adding to `work` the regex's steps
    /// (``MatcherRegex/wholeMatch(_:work:)``).
    public func matches(_ labels: [String: String], work: inout Int) -> Bool {
        let actual = labels[name] ?? ""
        // Not `regex.map`: its closure took a copy of the regex, four
        // retains and releases for every silence held against every alert.
        if let regex { return regex.wholeMatch(actual, work: &work) == op.isPositive }
        return LabelMatcher.same(actual, value) == op.isPositive
    }

    /// Label values compare byte for byte, as in Alertmanager and in the
    /// store's filters: Swift's `==` takes `café` composed and decomposed as
    /// one, and a silence held both alerts where Alertmanager holds one.
    public static func same(_ a: String, _ b: String) -> Bool {
        // A count is at hand for a native string: most values differ in it.
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// True when an alert without the label satisfies it: a silence made
    /// only of such matchers would silence nearly everything.
    public var matchesEmpty: Bool { matches([:]) }

    /// `name="value"`, quoted and escaped as amtool prints it and
    /// ``init(parsing:)`` reads it back.
    public var description: String {
        var quoted = ""
        for c in value {
            switch c {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            default: quoted.append(c)
            }
        }
        return "\(name)\(op.rawValue)\"\(quoted)\""
    }

    /// Values byte for byte, as they match (``same(_:_:)``): a silence
    /// changed from `k="é"` composed to decomposed holds other alerts.
    public static func == (a: LabelMatcher, b: LabelMatcher) -> Bool {
        a.name == b.name && a.op == b.op && same(a.value, b.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(op)
        hasher.combine(ExactText(value))
    }
}

extension LabelMatcher: Codable {
    package enum CodingKeys: String, CodingKey {
        case name, value
        case op = "operator"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(name: c.decode(String.self, forKey: .name), c.decode(MatchOperator.self, forKey: .op),
                          c.decode(String.self, forKey: .value))
        } catch let error as SilenceError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(op, forKey: .op)
        try c.encode(value, forKey: .value)
    }
}
