/// Alertmanager's inhibition rule: while an open alert matches the source
/// matchers, alerts matching the target matchers that carry the same values
/// for every `equal` label (a label missing on both counts as equal) are
/// stored but not delivered. An alert never inhibits itself.
public struct InhibitRule: Sendable, Equatable {
    public var sourceMatchers: [LabelMatcher]
    public var targetMatchers: [LabelMatcher]
    public var equal: [String]

    public init(sourceMatchers: [LabelMatcher], targetMatchers: [LabelMatcher], equal: [String] = []) {
        self.sourceMatchers = sourceMatchers
        self.targetMatchers = targetMatchers
        self.equal = equal
    }

    /// Label pairs every source of this rule has: its `name="value"`
    /// source matchers with a value (an empty one also matches a missing
    /// label). A store can find the sources by them, reading no other
    /// alert; none means any alert may be one.
    public var sourceLabels: [(name: String, value: String)] { sourceMatchers.compactMap(\.requiredLabel) }

    /// Whether an alert with `labels` can inhibit anything under this rule.
    public func isSource(_ labels: [String: String]) -> Bool { sourceMatchers.allSatisfy { $0.matches(labels) } }

    /// Whether this rule can hold back an alert with `labels`.
    public func isTarget(_ labels: [String: String]) -> Bool { targetMatchers.allSatisfy { $0.matches(labels) } }

    /// Whether an open source alert with `source` labels holds back a
    /// target with `target` labels (the caller rules out the alert itself).
    /// A target that matches the source side too is not held by a source
    /// that matches the target side too, as in Alertmanager: two alerts
    /// that each match both sides (two `critical`s under a rule that lets
    /// a `critical` hold back a `critical`) do not hold each other back.
    public func inhibits(_ target: [String: String], by source: [String: String]) -> Bool {
        isTarget(target) && isSource(source) && !(isSource(target) && isTarget(source))
            && equal.allSatisfy { LabelMatcher.same(target[$0] ?? "", source[$0] ?? "") }
    }
}

extension SilenceID {
    /// What a delivery held back by an inhibition records as its holder:
    /// the source alert, so that closing it releases exactly what it held.
    public static func inhibition(by source: AlertID) -> SilenceID { SilenceID(rawValue: inhibitionPrefix + source.rawValue) }

    /// What every holder ``inhibition(by:)`` makes begins with.
    public static let inhibitionPrefix = "inhibit:"

    /// Whether this holder is an inhibiting alert rather than a silence.
    public var isInhibition: Bool { rawValue.hasPrefix(Self.inhibitionPrefix) }
}
