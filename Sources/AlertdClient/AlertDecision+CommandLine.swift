import AlertModel

extension AlertDecision {
    /// How alertctl tells a decision: `confirmed by uid:1000 at 2025-06-01
    /// 12:00:00 UTC (comment: ship it)`, or `confirmed via link by
    /// alice@example.com at …` for a link sent to a known address; an
    /// expiry has no actor to name.
    package var commandLineText: String {
        var text = summaryText
        if let comment, !comment.isEmpty { text += " (comment: \(AlertListTable.singleLine(comment)))" }
        return text
    }

    /// The decision without its comment: `confirmed by uid:1000 at
    /// 2025-06-01 12:00:00 UTC`, for where the comment has a line of its own.
    package var summaryText: String {
        var text = outcome.rawValue
        if outcome != .expired { text += " \(byline)" }
        return text + " at \(UTCTimestamp.readable(at))"
    }
}
