extension AlertSpec {
    /// The spec as the API shows it and presenters are sent it: each handler
    /// URL without its user info or query values. Credentials in a handler URL are for the
    /// handler call alone; whoever may read alerts, or receives them in a
    /// chat or webhook, must not be able to call the handler in alertd's name.
    public var withoutHandlerCredentials: AlertSpec {
        let (confirm, cancel) = (confirm?.withoutCredentials, cancel?.withoutCredentials)
        guard confirm != self.confirm || cancel != self.cancel else { return self }
        return AlertSpec(title: title, message: message, severity: severity, labels: labels,
                         confirm: confirm, cancel: cancel, dedupKey: dedupKey, expiresAfter: expiresAfter)
    }
}

extension AlertAction {
    /// The action with `user:password@` in its URL replaced by `***@`, and
    /// each query value by `***`: a token in the query (`?sig=…`) calls the
    /// handler as well as a password does.
    public var withoutCredentials: AlertAction {
        let shown = URLRedaction.shownHandlerURL(url)
        return shown == url ? self : AlertAction(label: label, url: shown, method: method)
    }
}
