import AlertModel

extension SeverityStyle {
    /// How a follow-up looks: green for an alert resolved or confirmed,
    /// grey for one cancelled or left to expire.
    public static func closed(_ outcome: AlertState) -> SeverityStyle {
        switch outcome {
        case .resolved, .open: SeverityStyle(colour: 0x2EB886, emoji: "✅", shortcode: "white_check_mark", label: "RESOLVED")
        case .confirmed: SeverityStyle(colour: 0x2EB886, emoji: "✅", shortcode: "white_check_mark", label: "CONFIRMED")
        case .cancelled: SeverityStyle(colour: 0x888888, emoji: "✖️", shortcode: "heavy_multiplication_x", label: "CANCELLED")
        case .expired: SeverityStyle(colour: 0x888888, emoji: "⌛", shortcode: "hourglass", label: "EXPIRED")
        }
    }
}
