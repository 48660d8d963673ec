import AlertModel

extension AlertDecision {
    /// How alertctl tells a decision: `confirmed by uid:1000 at 2025-06-01
    /// 12:00:00 UTC (comment: ship it)`; an expiry has no actor to name.
    package var commandLineText: String {
        var text = outcome.rawValue
        if outcome != .expired { text += " by \(actor)" }
        text += " at \(UTCTimestamp.readable(at))"
        if let comment, !comment.isEmpty { text += " (comment: \(AlertListTable.singleLine(comment)))" }
        return text
    }
}
