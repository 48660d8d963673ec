/// One label as a name and a value: what a group is keyed by, kept as a
/// sorted array where a dictionary's order would not be stable.
public struct AlertLabel: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `name=value`, as Alertmanager writes group keys.
    public var description: String { "\(name)=\(value)" }

    public static func < (a: AlertLabel, b: AlertLabel) -> Bool {
        (a.name, a.value) < (b.name, b.value)
    }

    /// `labels` as a sorted array.
    public static func sorted(_ labels: [String: String]) -> [AlertLabel] {
        labels.map { AlertLabel(name: $0.key, value: $0.value) }.sorted()
    }
}
