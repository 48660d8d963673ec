extension AlertTemplate {
    /// What is wrong, under `limits`, with the parts of this template no
    /// value fills: problems every use would have, found when the file is
    /// loaded rather than at each alert. A field with placeholders can
    /// only be judged filled, so it is left out, except that its label
    /// still counts towards `limits.maxLabels`.
    public func fixedProblems(limits: AlertSpecLimits) -> [AlertSpecError] {
        func fixed(_ text: String?) -> Bool { text.map { Self.placeholderNames(in: $0).isEmpty } ?? true }
        func fixed(_ action: AlertAction?) -> Bool { action.map { fixed($0.label) && fixed($0.url) } ?? true }
        // A distinct letter-led value each, so two placeholders never fill alike.
        let values = Dictionary(uniqueKeysWithValues: placeholders.map { ($0, "x" + $0) })
        let filled = fill(AlertSpec.Builder(), values: values)
        // The title may be the sender's to give: a missing one is not this file's problem.
        let built = (filled.title.isGiven ? filled : filled.title("x")).build(limits: limits)
        guard case .failure(let errors) = built else { return [] }
        return errors.errors.filter { error in
            let field = error.field
            if error.code == .duplicateActionLabel { return fixed(confirm?.label) && fixed(cancel?.label) }
            switch field.split(separator: ".", maxSplits: 1).first.map(String.init) ?? field {
            case "title": return fixed(title)
            case "message": return fixed(message)
            case "severity": return fixed(severity)
            case "dedup_key": return fixed(dedupKey)
            case "expires_after": return fixed(expiresAfter)
            case "confirm": return fixed(confirm)
            case "cancel": return fixed(cancel)
            case "labels": return field == "labels" || fixed(labels[String(field.dropFirst("labels.".count))])
            default: return false
            }
        }
    }
}
