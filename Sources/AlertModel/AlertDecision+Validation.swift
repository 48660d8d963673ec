extension AlertDecision {
    /// Longest comment, in characters.
    public static let maxCommentLength = 1_000

    /// What is wrong with the text a decision would carry, under the same
    /// `TextPolicy` as an alert's: the comment and the actor's name go out
    /// verbatim in events, logs and handler payloads. Empty when nothing is.
    public static func textProblems(comment: String?, actor: String) -> [AlertSpecError] {
        var problems: [AlertSpecError] = []
        if let comment, let problem = TextPolicy.problem(field: "comment", in: comment, .multiline, what: "The comment") {
            problems.append(problem)
        }
        if let problem = TextPolicy.problem(field: "actor", in: actor, .line, what: "The actor name") {
            problems.append(problem)
        }
        return problems
    }
}
