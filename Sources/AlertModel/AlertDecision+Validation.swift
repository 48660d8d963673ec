extension AlertDecision {
    /// Longest comment, in characters.
    public static let maxCommentLength = 1_000

    /// Longest recipient address a link names, in UTF-8 bytes: an e-mail
    /// address's limit (RFC 5321), and short enough that a link naming it
    /// still fits a push notification's URL field.
    public static let maxRecipientLength = 254

    /// Whether `text` can be a decision's recipient: one line of plain
    /// text, not empty, within ``maxRecipientLength``.
    public static func isRecipient(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxRecipientLength
            && TextPolicy.problem(field: "recipient", in: text, .line, what: "The recipient") == nil
    }

    /// What is wrong with the text a decision would carry, under the same
    /// `TextPolicy` as an alert's: the comment and the actor's name go out
    /// verbatim in events, logs and handler payloads. Empty when nothing is.
    public static func textProblems(comment: String?, actor: String, recipient: String? = nil) -> [AlertSpecError] {
        var problems: [AlertSpecError] = []
        if let comment, let problem = TextPolicy.problem(field: "comment", in: comment, .multiline, what: "The comment") {
            problems.append(problem)
        }
        if let problem = TextPolicy.problem(field: "actor", in: actor, .line, what: "The actor name") {
            problems.append(problem)
        }
        if let recipient, let problem = TextPolicy.problem(field: "recipient", in: recipient, .line, what: "The recipient") {
            problems.append(problem)
        }
        return problems
    }
}
