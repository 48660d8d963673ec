/// How urgent an alert is. Ordered from least to most severe.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case info
    case warning
    case error
    case critical

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        case .critical: 3
        }
    }

    /// The accepted spellings, for help texts and error messages.
    public static let spellings = allCases.map(\.rawValue).joined(separator: ", ")
}
