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
    /// The actor and recipient as a terminal may show them: alertd checks
    /// both, a server that is not alertd checks nothing.
    package var summaryText: String {
        var text = outcome.rawValue
        if outcome != .expired { text += " \(AlertListTable.singleLine(byline))" }
        return text + " at \(UTCTimestamp.readable(at))"
    }
}
