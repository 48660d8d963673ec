import AlertdCurl

/// An attempt the dispatcher has started: a task of its own, or a request
/// on an HTTP client's thread (``HTTPRequestPresenter``), nil when it was
/// settled without one, until it reports back; then `reported`, its
/// outcome on its way to the store, which a stop no longer cuts off.
enum RunningAttempt {
    case task(Task<Void, Never>)
    case request(HTTPClientTransfer?)
    case reported

    /// A request that has not reported back.
    var isRequest: Bool {
        if case .request = self { true } else { false }
    }

    /// A request, reported back or not: not done until its outcome is written.
    var ranOnClient: Bool {
        if case .task = self { false } else { true }
    }

    /// Cuts the attempt off: the task is cancelled, the request aborted.
    func cancel() {
        switch self {
        case .task(let task): task.cancel()
        case .request(let transfer): transfer?.cancel()
        case .reported: break
        }
    }
}
