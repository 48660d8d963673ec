import AlertdCurl

/// An attempt the dispatcher has started: a task of its own, or a request
/// on an HTTP client's thread (``HTTPRequestPresenter``), nil when it was
/// settled without one.
enum RunningAttempt {
    case task(Task<Void, Never>)
    case request(HTTPClientTransfer?)

    var isRequest: Bool {
        if case .request = self { true } else { false }
    }

    /// Cuts the attempt off: the task is cancelled, the request aborted.
    func cancel() {
        switch self {
        case .task(let task): task.cancel()
        case .request(let transfer): transfer?.cancel()
        }
    }
}
