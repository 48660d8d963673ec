/// How a matcher compares a label's value, as Alertmanager spells it.
public enum MatchOperator: String, Sendable, Hashable, Codable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case matchesRegex = "=~"
    case doesNotMatchRegex = "!~"

    /// True for `=~` and `!~`.
    public var isRegex: Bool { self == .matchesRegex || self == .doesNotMatchRegex }

    /// True for `=` and `=~`: a match is what the operator asks for.
    public var isPositive: Bool { self == .equal || self == .matchesRegex }

    /// The operator of Alertmanager's wire form (`isRegex`, `isEqual`).
    public init(isRegex: Bool, isEqual: Bool) {
        switch (isRegex, isEqual) {
        case (false, true): self = .equal
        case (false, false): self = .notEqual
        case (true, true): self = .matchesRegex
        case (true, false): self = .doesNotMatchRegex
        }
    }
}
