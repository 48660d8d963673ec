import AlertModel

/// How each severity looks wherever alerts are shown with colour or an
/// emoji: one table, so a critical alert is the same red in Slack, Discord
/// and a mail.
public struct SeverityStyle: Sendable, Equatable {
    /// 0xRRGGBB.
    public let colour: Int
    /// The emoji itself, for text.
    public let emoji: String
    /// The emoji's short code (`rotating_light`), for services that take
    /// names (ntfy tags, Slack).
    public let shortcode: String
    /// `CRITICAL`, for subjects and headings.
    public let label: String

    /// `#RRGGBB`.
    public var hexColour: String {
        let hex = String(colour, radix: 16, uppercase: true)
        return "#" + String(repeating: "0", count: max(0, 6 - hex.count)) + hex
    }

    public static func of(_ severity: Severity) -> SeverityStyle {
        switch severity {
        case .info: SeverityStyle(colour: 0x2E86DE, emoji: "ℹ️", shortcode: "information_source", label: "INFO")
        case .warning: SeverityStyle(colour: 0xF5A623, emoji: "⚠️", shortcode: "warning", label: "WARNING")
        case .error: SeverityStyle(colour: 0xE8590C, emoji: "❗", shortcode: "exclamation", label: "ERROR")
        case .critical: SeverityStyle(colour: 0xD0021B, emoji: "🚨", shortcode: "rotating_light", label: "CRITICAL")
        }
    }
}

extension Severity {
    /// The value on a service's own scale (a priority) that stands for this
    /// severity: the one place a type says how its levels line up with alertd's.
    public func on<T>(info: T, warning: T, error: T, critical: T) -> T {
        switch self {
        case .info: info
        case .warning: warning
        case .error: error
        case .critical: critical
        }
    }
}
