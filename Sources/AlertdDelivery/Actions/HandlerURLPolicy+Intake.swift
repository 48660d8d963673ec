import AlertModel

extension AlertSpecError.Code {
    /// The handler policy will certainly refuse the URL: it is not on
    /// `actions.allow`, names an internal address literally, or cannot be
    /// taken apart unambiguously.
    public static let handlerURLNotAllowed = AlertSpecError.Code(rawValue: "handler_url_not_allowed")
}

extension HandlerURLPolicy {
    /// `built` with a problem added for each handler URL this policy will
    /// certainly refuse, so the submitter hears it now instead of the call
    /// failing after someone has decided. Calls are still checked when made
    /// (the configuration may change in between, and names resolve then).
    /// A URL the builder already finds fault with is left to that message.
    package func screening(_ built: Result<AlertSpec, AlertSpecErrors>, of builder: AlertSpec.Builder) -> Result<AlertSpec, AlertSpecErrors> {
        let existing: [AlertSpecError]
        switch built {
        case .success: existing = []
        case .failure(let errors): existing = errors.errors
        }
        var problems: [AlertSpecError] = []
        for (field, value) in [("confirm", builder.confirm), ("cancel", builder.cancel)] {
            guard case .present(let action) = value else { continue }
            let path = "\(field).url"
            guard !existing.contains(where: { $0.field == path }), case .failure(let refusal) = check(action.url) else { continue }
            problems.append(AlertSpecError(field: path, code: .handlerURLNotAllowed,
                                           message: "alertd will not call this handler: \(refusal.message)."))
        }
        guard !problems.isEmpty else { return built }
        return .failure(AlertSpecErrors(existing + problems))
    }
}
